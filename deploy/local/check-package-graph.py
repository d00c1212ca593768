#!/usr/bin/env python3
# Package.swift says what is there: each target's declared dependencies (as `swift package dump-package` reads
# them) must equal the modules its Swift files import, nothing undeclared and nothing unused. The toolchain's own
# modules are not counted. Exits 1 and names each target that differs.
# The edge (DeliveryService) and the relay (RelayService) both follow upstream through CampaignFollowing: neither
# depends on the other, directly or through another target, and CampaignFollowing on neither.
# It also holds the SDK's package (sdk/) to what an app may add (below), and keeps shared mutable state behind the project's lock: no Swift file outside Sources/Locking names
# `Mutex` in code (comments aside), so ThreadSanitizer sees every lock (`Locked` is `Mutex` in other builds), and no
# `Locked` there or anywhere holds a function type as its value (a read through `withLock`'s inout wraps the closure
# in more thunks each time; `LockedCallback` keeps one in a struct).
import glob, json, os, re, subprocess, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
pkg=json.loads(subprocess.check_output(['swift','package','dump-package'],stderr=subprocess.DEVNULL))
system={'Foundation','Glibc','Darwin','Testing','Synchronization','Dispatch','FoundationNetworking','XCTest','_Concurrency'}
names={t['name'] for t in pkg['targets']}
bad=False
for t in pkg['targets']:
    name=t['name']; typ=t['type']
    if typ=='system': continue
    path=t.get('path') or ('Tests/'+name if typ=='test' else 'Sources/'+name)
    deps=set()
    for d in t['dependencies']:
        if 'byName' in d: deps.add(d['byName'][0])
        elif 'product' in d: deps.add(d['product'][0])
        elif 'target' in d: deps.add(d['target'][0])
    imports=set()
    for f in glob.glob(path+'/**/*.swift',recursive=True):
        for m in re.finditer(r'^\s*(?:@testable |@_implementationOnly |public |internal |package )?import (?:struct |enum |class |func )?([A-Za-z_0-9]+)',open(f).read(),re.M):
            imports.add(m.group(1))
    imports-=system
    undeclared=imports-deps
    unused=deps-imports
    if undeclared or unused:
        bad=True
        print(f'{name}: undeclared {sorted(undeclared)} unused {sorted(unused)}')
# The edge and the relay side by side over CampaignFollowing: no path of target dependencies from one to the other.
target_deps={t['name']:{(d.get('byName') or d.get('target'))[0] for d in t['dependencies'] if 'byName' in d or 'target' in d} & names
             for t in pkg['targets']}
def path(start,goal):
    seen=set(); stack=[[start]]
    while stack:
        route=stack.pop()
        for n in sorted(target_deps.get(route[-1],())):
            if n==goal: return route+[n]
            if n not in seen: seen.add(n); stack.append(route+[n])
    return None
for start,goal in [('RelayService','DeliveryService'),('DeliveryService','RelayService'),
                   ('CampaignFollowing','DeliveryService'),('CampaignFollowing','RelayService')]:
    route=path(start,goal)
    if route:
        bad=True
        print(f"{start} depends on {goal} ({' -> '.join(route)}): the edge and the relay share CampaignFollowing, not each other")
# The SDK (sdk/, what an app adds) is a package of its own: no package dependency at all; LaunchAdKit depends on
# nothing and imports Foundation alone; LaunchAdKitUI and LaunchAdKitTesting depend on LaunchAdKit alone; LaunchAdKitUI imports Apple's frameworks, and
# keeps every file under `#if canImport(UIKit)` so that the package builds on Linux.
sdk=json.loads(subprocess.check_output(['swift','package','--package-path','sdk','dump-package'],stderr=subprocess.DEVNULL))
if sdk.get('dependencies'):
    bad=True
    print(f"sdk/Package.swift: an app adds it alone, so it may depend on no package (it declares {len(sdk['dependencies'])})")
sdk_targets={t['name']:t for t in sdk['targets']}
allowed_deps={'LaunchAdKit':set(),'LaunchAdKitUI':{'LaunchAdKit'},'LaunchAdKitTesting':{'LaunchAdKit'}}
allowed_imports={'LaunchAdKit':{'Foundation','FoundationNetworking'},
                 'LaunchAdKitUI':{'Foundation','UIKit','AVFoundation','ImageIO','QuartzCore','CoreGraphics','UniformTypeIdentifiers','LaunchAdKit'},
                 'LaunchAdKitTesting':{'Foundation','LaunchAdKit'}}
for name,deps in allowed_deps.items():
    t=sdk_targets.get(name)
    if t is None:
        bad=True; print(f'sdk/Package.swift: no target {name}'); continue
    declared={(d.get('byName') or d.get('target') or d.get('product'))[0] for d in t['dependencies']}
    if declared!=deps:
        bad=True; print(f'sdk {name}: depends on {sorted(declared)}, may depend on {sorted(deps)} only')
    for f in glob.glob('sdk/Sources/'+name+'/**/*.swift',recursive=True):
        text=open(f).read()
        for m in re.finditer(r'^\s*(?:@\w+ |public |internal |package )*import (?:struct |enum |class |func )?([A-Za-z_0-9]+)',text,re.M):
            if m.group(1) not in allowed_imports[name]:
                bad=True
                print(f'{f}: imports {m.group(1)}; {name} may import {sorted(allowed_imports[name])} only')
        if name=='LaunchAdKitUI':
            code=[l for l in text.splitlines() if l.strip() and not l.strip().startswith('//')]
            if not code or code[0].strip()!='#if canImport(UIKit)' or code[-1].strip()!='#endif':
                bad=True
                print(f'{f}: LaunchAdKitUI files are wholly under `#if canImport(UIKit)` (the package builds on Linux)')
lock_sites=[]
closure_sites=[]
for f in sorted(glob.glob('Sources/**/*.swift',recursive=True)+glob.glob('Tests/**/*.swift',recursive=True)+
                glob.glob('sdk/Sources/**/*.swift',recursive=True)+glob.glob('sdk/Tests/**/*.swift',recursive=True)+
                glob.glob('bench/**/*.swift',recursive=True)+glob.glob('fuzz/**/*.swift',recursive=True)):
    # Sources/Locking is where Mutex belongs; the closure rule holds there too.
    mutex_allowed=f.startswith('Sources/Locking/')
    for n,line in enumerate(open(f),1):
        code=re.sub(r'//.*','',re.sub(r'"(?:[^"\\]|\\.)*"','""',line))
        if not mutex_allowed and re.search(r'\bMutex\b',code): lock_sites.append(f'{f}:{n}: {line.strip()}')
        # A function type as Locked's value: withLock's generic inout re-wraps the closure in thunks at every read.
        if re.search(r'\bLocked<\s*\(*\s*(?:@\w+\s*)*\([^()]*\)\s*(?:async\s*)?(?:throws\b(?:\([^()]*\))?\s*)?->',code):
            closure_sites.append(f'{f}:{n}: {line.strip()}')
if lock_sites:
    bad=True
    print('Mutex used outside Sources/Locking (use Locked from the Locking module: same init and withLock):')
    for l in lock_sites: print('  '+l)
if closure_sites:
    bad=True
    print('a closure as Locked\'s value (each withLock { $0 } wraps it in more thunks; keep it in a LockedCallback or a struct):')
    for l in closure_sites: print('  '+l)
if not bad:
    print(f'package graph: the dependencies of all {len(names)} targets are their imports; the edge and the relay share CampaignFollowing, neither depending on the other; the SDK package depends on nothing and LaunchAdKit needs Foundation only; no Mutex outside Sources/Locking; no closure as Locked\'s value')
sys.exit(1 if bad else 0)
