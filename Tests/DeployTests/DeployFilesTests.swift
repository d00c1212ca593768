import Foundation
import LaunchAdTesting
import Testing
import Yams

/// What can be checked of deploy/ without a container engine or a cluster: the files parse, hold what an operator
/// needs, name only real flags and variables, and the unit files pass `systemd-analyze verify`.
@Suite("Deploy files", .timeLimit(.minutes(3)))
struct DeployFilesTests {
    typealias Object = [String: Any]

    @Test("every YAML file under deploy/ parses, each document a mapping")
    func yamlParses() throws {
        let files = Repository.deployFiles().filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
        #expect(files.count >= 5, "\(files)")
        for file in files {
            let documents = try Repository.yamlDocuments(file)
            #expect(!documents.isEmpty, "\(file) holds no document")
            for document in documents { #expect(document is Object, "\(file): a document that is not a mapping") }
        }
    }

    /// The compose files: one campaignd on SQLite, and two over PostgreSQL.
    static let composeFiles: [(file: String, campaignd: [String])] = [
        ("compose.yaml", ["campaignd"]), ("compose.postgres.yaml", ["campaignd-a", "campaignd-b"]),
    ]

    @Test("compose: campaignd (one, or two over PostgreSQL) and two edges, each with secrets, a health check and a volume; keys where the services read them; edges follow every campaignd",
          arguments: composeFiles.map(\.file))
    func compose(file: String) throws {
        let campaignds = try #require(Self.composeFiles.first { $0.file == file }?.campaignd)
        let compose = try #require(try Repository.yamlDocuments("deploy/compose/\(file)").first as? Object)
        var services = try #require(compose["services"] as? [String: Object])
        let postgres = services.removeValue(forKey: "postgres")
        #expect(Set(services.keys) == Set(campaignds + ["edge-1", "edge-2"]))
        #expect((postgres != nil) == (campaignds.count > 1), "PostgreSQL comes with the pair, and only then")
        let declaredSecrets = try #require(compose["secrets"] as? [String: Object])
        let declaredVolumes = try #require(compose["volumes"] as? [String: Any?])

        func secrets(_ service: Object) -> [(source: String, target: String)] {
            ((service["secrets"] as? [Object]) ?? []).compactMap { entry in
                guard let source = entry["source"] as? String, let target = entry["target"] as? String else { return nil }
                return (source, target)
            }
        }
        func secretFile(_ source: String) -> String? {
            (declaredSecrets[source]?["file"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent }
        }
        for (name, service) in services {
            let test = (service["healthcheck"] as? Object)?["test"] as? [String]
            #expect(test?.contains("/usr/local/bin/launchad-healthz") == true, "\(name) has no health check")
            let volumes = (service["volumes"] as? [String]) ?? []
            #expect(!volumes.isEmpty, "\(name) has no volume")
            for volume in volumes {
                let named = String(volume.prefix { $0 != ":" })
                #expect(declaredVolumes.keys.contains(named), "\(name) mounts \(named), which compose.yaml does not declare")
            }
            #expect(!secrets(service).isEmpty, "\(name) has no secrets")
            for secret in secrets(service) {
                #expect(secretFile(secret.source) != nil, "\(name) uses the secret \(secret.source), which is not declared with a file")
            }
            #expect(service["image"] as? String != nil && service["build"] as? Object != nil, "\(name) needs an image and a build")
            if name.hasPrefix("edge-") { #expect(Self.allowsUpdatesPriority(service), "\(name)") }
        }

        // Each campaignd: its keys folder holds campaignd.key, and admits adctl and every edge's public key; over
        // PostgreSQL, each names the database service and starts once it is healthy.
        var allTargets: [[String: String]] = []
        var keysDirectories: [String] = []
        for name in campaignds {
            let campaignd = try #require(services[name])
            let environment = try #require(campaignd["environment"] as? Object)
            let keysDirectory = try #require(environment["CAMPAIGND_KEYS_DIR"] as? String)
            let targets = Dictionary(secrets(campaignd).map { ($0.target, $0.source) }, uniquingKeysWith: { first, _ in first })
            #expect(targets["\(keysDirectory)/campaignd.key"].flatMap(secretFile) == "campaignd.key")
            #expect(targets.keys.contains { $0.hasPrefix("\(keysDirectory)/admin/") && $0.hasSuffix(".pub") })
            allTargets.append(targets)
            keysDirectories.append(keysDirectory)
            if let postgres {
                let database = environment["CAMPAIGND_DATABASE"] as? String ?? ""
                #expect(database.hasPrefix("postgres://") && database.contains("@postgres:5432/"), "\(name): \(database)")
                #expect(((campaignd["depends_on"] as? Object)?["postgres"] as? Object)?["condition"] as? String == "service_healthy")
                #expect(((postgres["healthcheck"] as? Object)?["test"] as? [String])?.contains("pg_isready") == true)
                #expect((postgres["volumes"] as? [String])?.isEmpty == false, "PostgreSQL's data needs a volume")
            }
        }

        for edgeName in ["edge-1", "edge-2"] {
            let edge = try #require(services[edgeName])
            let environment = try #require(edge["environment"] as? Object)
            let edgeKeys = try #require(environment["DELIVERYD_KEYS_DIR"] as? String)
            let edgeTargets = Dictionary(secrets(edge).map { ($0.target, $0.source) }, uniquingKeysWith: { first, _ in first })
            let keyFile = try #require(edgeTargets["\(edgeKeys)/edge.key"].flatMap(secretFile), "\(edgeName) has no edge.key")
            #expect(edgeTargets["\(edgeKeys)/campaignd.pub"].flatMap(secretFile) == "campaignd.pub")
            // Every campaignd admits this edge's public key.
            let publicFile = keyFile.replacingOccurrences(of: ".key", with: ".pub")
            for (targets, keysDirectory) in zip(allTargets, keysDirectories) {
                #expect(targets.contains { $0.key.hasPrefix("\(keysDirectory)/edges/") && secretFile($0.value) == publicFile },
                        "campaignd does not admit \(publicFile)")
            }
            // It reaches every campaignd by its service name, after each is healthy.
            for variable in ["DELIVERYD_CAMPAIGN_SYNC", "DELIVERYD_CAMPAIGN_UPDATES"] {
                let hosts = ((environment[variable] as? String) ?? "").split(separator: ",").map { $0.dropFirst("tcp://".count).prefix { $0 != ":" } }
                #expect(hosts.map(String.init) == campaignds, "\(edgeName) \(variable)")
            }
            for name in campaignds {
                #expect(((edge["depends_on"] as? Object)?[name] as? Object)?["condition"] as? String == "service_healthy")
            }
            let command = (edge["command"] as? [String]) ?? []
            #expect(command.firstIndex(of: "--edge-id").map { command[$0 + 1] } == edgeName)
        }
    }

    /// deliveryd's and relayd's `--updates-priority` by default.
    static let updatesPriority = 5

    /// Whether a compose service's RLIMIT_NICE lets its update stream's thread go that far below nice 0 with no
    /// capability: the raw limit is 20 less the lowest nice.
    static func allowsUpdatesPriority(_ service: Object) -> Bool {
        let nice = (service["ulimits"] as? Object)?["nice"]
        return (nice as? Int).map { 20 - $0 <= -updatesPriority } ?? false
    }

    @Test("compose with relays: campaignd admits the relays alone, a relay per region admits its edges, each edge follows its region's relay and trusts its key")
    func composeRelays() throws {
        let compose = try #require(try Repository.yamlDocuments("deploy/compose/compose.relays.yaml").first as? Object)
        let services = try #require(compose["services"] as? [String: Object])
        let declaredSecrets = try #require(compose["secrets"] as? [String: Object])
        #expect(Set(services.keys) == ["campaignd", "relay-east", "relay-west", "edge-1", "edge-2"])
        func targets(_ service: Object) -> [String: String] {
            var targets: [String: String] = [:]
            for entry in (service["secrets"] as? [Object]) ?? [] {
                guard let source = entry["source"] as? String, let target = entry["target"] as? String,
                      let file = declaredSecrets[source]?["file"] as? String else { continue }
                targets[target] = URL(fileURLWithPath: file).lastPathComponent
            }
            return targets
        }
        for (name, service) in services {
            #expect(((service["healthcheck"] as? Object)?["test"] as? [String])?.contains("/usr/local/bin/launchad-healthz") == true, "\(name)")
            #expect(!((service["volumes"] as? [String]) ?? []).isEmpty, "\(name) has no volume")
            if name != "campaignd" { #expect(Self.allowsUpdatesPriority(service), "\(name)") }
        }
        let campaignd = targets(try #require(services["campaignd"]))
        for (relay, edge) in [("relay-east", "edge-1"), ("relay-west", "edge-2")] {
            #expect(campaignd["/run/launchad/keys/relays/\(relay).pub"] == "\(relay).pub", "campaignd does not admit \(relay)")
            #expect(campaignd["/run/launchad/keys/edges/\(edge).pub"] == "\(edge).pub", "campaignd does not list \(edge), whose seals it checks")
            let relayService = try #require(services[relay])
            let relayKeys = targets(relayService)
            let relayEnvironment = try #require(relayService["environment"] as? Object)
            #expect(relayEnvironment["RELAYD_KEYS_DIR"] as? String == "/run/launchad/keys")
            #expect(relayKeys["/run/launchad/keys/relay.key"] == "\(relay).key")
            #expect(relayKeys["/run/launchad/keys/campaignd.pub"] == "campaignd.pub")
            #expect(relayKeys["/run/launchad/keys/edges/\(edge).pub"] == "\(edge).pub")
            #expect((relayEnvironment["RELAYD_UPSTREAM_SYNC"] as? String)?.hasPrefix("tcp://campaignd:") == true)
            let command = (relayService["command"] as? [String]) ?? []
            #expect(command.firstIndex(of: "--relay-id").map { command[$0 + 1] } == relay)
            let edgeService = try #require(services[edge])
            let edgeEnvironment = try #require(edgeService["environment"] as? Object)
            #expect(targets(edgeService)["/run/launchad/keys/campaignd.pub"] == "\(relay).pub", "\(edge) must trust its relay's key")
            #expect(targets(edgeService)["/run/launchad/keys/origin.pub"] == "campaignd.pub", "\(edge) must seal for campaignd's key")
            for variable in ["DELIVERYD_CAMPAIGN_SYNC", "DELIVERYD_CAMPAIGN_UPDATES"] {
                #expect((edgeEnvironment[variable] as? String)?.hasPrefix("tcp://\(relay):") == true, "\(edge) \(variable)")
            }
        }
    }

    @Test("compose: keys.sh writes every key file the compose files' secrets name")
    func composeKeys() async throws {
        var declared: [String: Object] = [:]
        for file in Self.composeFiles.map(\.file) + ["compose.relays.yaml"] {
            let compose = try #require(try Repository.yamlDocuments("deploy/compose/\(file)").first as? Object)
            declared.merge(try #require(compose["secrets"] as? [String: Object])) { first, _ in first }
        }
        let directory = try makeTemporaryDirectory("compose-keys")
        defer { removeTemporaryDirectory(directory) }
        let (status, output) = try await run(URL(fileURLWithPath: "/bin/bash"), [Repository.deploy.appendingPathComponent("compose/keys.sh").path],
                                             environment: ["KEYS_DIR": directory.path,
                                                           "ADCTL": ChildProcess.productsDirectory.appendingPathComponent("adctl").path])
        #expect(status == 0, "\(output)")
        for (name, secret) in declared {
            let file = try #require(secret["file"] as? String)
            #expect(file.hasPrefix("./keys/"), "\(name): \(file) is not in ./keys")
            let written = directory.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
            let key = try? String(contentsOf: written, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(key?.count == 40, "keys.sh did not write \(file) for the secret \(name)")
        }
        // A second run keeps the keys it finds.
        let before = try Data(contentsOf: directory.appendingPathComponent("campaignd.pub"))
        let again = try await run(URL(fileURLWithPath: "/bin/bash"), [Repository.deploy.appendingPathComponent("compose/keys.sh").path],
                                  environment: ["KEYS_DIR": directory.path,
                                                "ADCTL": ChildProcess.productsDirectory.appendingPathComponent("adctl").path])
        #expect(again.status == 0 && again.output.contains("kept"), "\(again.output)")
        #expect(try Data(contentsOf: directory.appendingPathComponent("campaignd.pub")) == before)
    }

    @Test("Kubernetes: campaignd and deliveryd StatefulSets with claims, edges ready on /healthz, a PDB on their labels, read-only keys, a key per edge")
    func kubernetes() throws {
        let kustomization = try #require(try Repository.yamlDocuments("deploy/k8s/kustomization.yaml").first as? Object)
        let resources = try #require(kustomization["resources"] as? [String])
        let manifests = Repository.deployFiles().filter { $0.hasPrefix("deploy/k8s/") && $0.hasSuffix(".yaml") && !$0.hasSuffix("kustomization.yaml") }
        #expect(Set(resources.map { "deploy/k8s/\($0)" }) == Set(manifests), "kustomization.yaml must list every manifest")
        var everything: [Object] = []
        for resource in resources { everything += try Repository.yamlDocuments("deploy/k8s/\(resource)").compactMap { $0 as? Object } }
        func objects(_ kind: String) -> [Object] { everything.filter { $0["kind"] as? String == kind } }
        func named(_ kind: String, _ name: String) -> Object? {
            objects(kind).first { ($0["metadata"] as? Object)?["name"] as? String == name }
        }
        func path(_ object: Any?, _ keys: String...) -> Any? {
            keys.reduce(object) { ($0 as? Object)?[$1] }
        }

        let statefulSet = try #require(named("StatefulSet", "campaignd"))
        let claims = try #require(path(statefulSet, "spec", "volumeClaimTemplates") as? [Object])
        let claimName = try #require(path(claims.first, "metadata", "name") as? String)
        let campaigndContainer = try #require((path(statefulSet, "spec", "template", "spec", "containers") as? [Object])?.first)
        let campaigndMounts = (campaigndContainer["volumeMounts"] as? [Object]) ?? []
        #expect(campaigndMounts.contains { $0["name"] as? String == claimName && $0["mountPath"] as? String == "/var/lib/campaignd" })
        #expect(path(statefulSet, "spec", "replicas") as? Int == 1, "one campaignd: SQLite has one writer")
        let serviceName = try #require(path(statefulSet, "spec", "serviceName") as? String)
        #expect(named("Service", serviceName) != nil)

        // The edges keep their cache across rescheduling: a StatefulSet whose claim is mounted where --cache-dir points.
        #expect(named("Deployment", "deliveryd") == nil, "deliveryd must be a StatefulSet, its cache a volume claim")
        let deployment = try #require(named("StatefulSet", "deliveryd"))
        let edgeClaims = try #require(path(deployment, "spec", "volumeClaimTemplates") as? [Object])
        let edgeClaim = try #require(path(edgeClaims.first, "metadata", "name") as? String)
        let edgeArguments = ((path(deployment, "spec", "template", "spec", "containers") as? [Object])?.first?["args"] as? [String]) ?? []
        let cacheDirectory = edgeArguments.firstIndex(of: "--cache-dir").map { edgeArguments[$0 + 1] }
        let edgeMounts = ((path(deployment, "spec", "template", "spec", "containers") as? [Object])?.first?["volumeMounts"] as? [Object]) ?? []
        #expect(edgeMounts.contains { $0["name"] as? String == edgeClaim && $0["mountPath"] as? String == cacheDirectory })
        #expect(!(((path(deployment, "spec", "template", "spec", "volumes") as? [Object]) ?? []).contains { $0["name"] as? String == edgeClaim }),
                "the cache must be the claim, not a pod volume")
        let edgeServiceName = try #require(path(deployment, "spec", "serviceName") as? String)
        #expect(named("Service", edgeServiceName) != nil)
        // A key per edge: each pod mounts its own secret key as edge.key, and campaignd admits deliveryd-N.pub for each.
        #expect(edgeMounts.contains { ($0["mountPath"] as? String)?.hasSuffix("/edge.key") == true
                                      && $0["subPathExpr"] as? String == "$(DELIVERYD_EDGE_ID).key" })
        let edgeEnvironment = ((path(deployment, "spec", "template", "spec", "containers") as? [Object])?.first?["env"] as? [Object]) ?? []
        #expect(edgeEnvironment.contains { $0["name"] as? String == "DELIVERYD_EDGE_ID"
                                           && path($0, "valueFrom", "fieldRef", "fieldPath") as? String == "metadata.name" })
        let replicas = try #require(path(deployment, "spec", "replicas") as? Int)
        let campaigndItems = ((path(statefulSet, "spec", "template", "spec", "volumes") as? [Object]) ?? [])
            .compactMap { path($0, "secret", "items") as? [Object] }.flatMap { $0 }.compactMap { $0["path"] as? String }
        for pod in 0..<replicas { #expect(campaigndItems.contains("edges/deliveryd-\(pod).pub"), "campaignd does not admit deliveryd-\(pod)") }
        let podLabels = try #require(path(deployment, "spec", "template", "metadata", "labels") as? [String: String])
        let selector = try #require(path(deployment, "spec", "selector", "matchLabels") as? [String: String])
        #expect(selector.allSatisfy { podLabels[$0.key] == $0.value })
        let container = try #require((path(deployment, "spec", "template", "spec", "containers") as? [Object])?.first)
        let portNames = Set(((container["ports"] as? [Object]) ?? []).compactMap { $0["name"] as? String })
        #expect(path(container, "readinessProbe", "httpGet", "path") as? String == "/healthz")
        let readinessPort = path(container, "readinessProbe", "httpGet", "port")
        #expect((readinessPort as? String).map(portNames.contains) ?? (readinessPort as? Int == 8200))
        #expect(path(container, "livenessProbe") as? Object != nil)
        #expect(path(container, "resources", "requests", "cpu") != nil && path(container, "resources", "limits", "memory") != nil)
        let edgeService = try #require(objects("Service").first { (path($0, "spec", "selector") as? [String: String]) == selector })
        #expect(((path(edgeService, "spec", "ports") as? [Object]) ?? []).contains { $0["port"] as? Int == 7200 })

        let budget = try #require(objects("PodDisruptionBudget").first)
        let budgetSelector = try #require(path(budget, "spec", "selector", "matchLabels") as? [String: String])
        #expect(!budgetSelector.isEmpty && budgetSelector.allSatisfy { podLabels[$0.key] == $0.value },
                "the PodDisruptionBudget must select deliveryd's pods")
        #expect(path(budget, "spec", "minAvailable") != nil || path(budget, "spec", "maxUnavailable") != nil)

        // Keys: Secret volumes, mounted read-only, where --keys-dir points.
        for workload in [statefulSet, deployment] {
            let podSpec = try #require(path(workload, "spec", "template", "spec") as? Object)
            let container = try #require((podSpec["containers"] as? [Object])?.first)
            let secretVolumes = Set(((podSpec["volumes"] as? [Object]) ?? []).filter { $0["secret"] != nil }.compactMap { $0["name"] as? String })
            let keyMounts = ((container["volumeMounts"] as? [Object]) ?? []).filter { secretVolumes.contains($0["name"] as? String ?? "") }
            #expect(!keyMounts.isEmpty && keyMounts.allSatisfy { $0["readOnly"] as? Bool == true }, "keys must come from a Secret, read-only")
            let arguments = (container["args"] as? [String]) ?? []
            let keysDirectory = arguments.firstIndex(of: "--keys-dir").map { arguments[$0 + 1] }
            #expect(keyMounts.contains { ($0["mountPath"] as? String).map { $0 == keysDirectory || $0.hasPrefix((keysDirectory ?? "") + "/") } == true })
            for reference in (container["envFrom"] as? [Object]) ?? [] {
                let name = try #require(path(reference, "configMapRef", "name") as? String)
                #expect(named("ConfigMap", name) != nil, "no ConfigMap \(name)")
            }
            #expect(path(container, "securityContext", "allowPrivilegeEscalation") as? Bool == false)
            #expect(path(podSpec, "securityContext", "runAsNonRoot") as? Bool == true)
        }
    }

    @Test("Kubernetes over PostgreSQL: deploy/k8s-postgres makes campaignd two replicas given the database from a Secret, the edges follow both, a PDB keeps one; kubectl renders it where installed")
    func kubernetesPostgres() async throws {
        let folder = "deploy/k8s-postgres"
        let kustomization = try #require(try Repository.yamlDocuments("\(folder)/kustomization.yaml").first as? Object)
        let resources = (kustomization["resources"] as? [String]) ?? []
        let patches = ((kustomization["patches"] as? [Object]) ?? []).compactMap { $0["path"] as? String }
        #expect(resources.contains("../k8s"), "the overlay builds on deploy/k8s")
        #expect(kustomization["namespace"] as? String == "launchad")
        let files = Repository.deployFiles().filter { $0.hasPrefix("\(folder)/") && !$0.hasSuffix("kustomization.yaml") }
        #expect(Set(files) == Set((resources.filter { $0 != "../k8s" } + patches).map { "\(folder)/\($0)" }), "every file is a resource or a patch")
        var documents: [Object] = []
        for file in files { documents += try Repository.yamlDocuments(file).compactMap { $0 as? Object } }
        func document(_ kind: String, _ name: String) -> Object? {
            documents.first { $0["kind"] as? String == kind && ($0["metadata"] as? Object)?["name"] as? String == name }
        }
        func path(_ object: Any?, _ keys: String...) -> Any? { keys.reduce(object) { ($0 as? Object)?[$1] } }

        func checkPair(_ statefulSet: Object?, _ config: Object?, _ budget: Object?) {
            #expect(path(statefulSet, "spec", "replicas") as? Int == 2)
            let container = (path(statefulSet, "spec", "template", "spec", "containers") as? [Object])?.first { $0["name"] as? String == "campaignd" }
            let database = (container?["env"] as? [Object])?.first { $0["name"] as? String == "CAMPAIGND_DATABASE" }
            #expect(path(database, "valueFrom", "secretKeyRef", "name") as? String == "campaignd-database"
                    && path(database, "valueFrom", "secretKeyRef", "key") as? String == "url", "the URL comes from a Secret, not the manifest")
            #expect(path(config, "data", "DELIVERYD_CAMPAIGN_SYNC") as? String == "tcp://campaignd-0.campaignd:7101,tcp://campaignd-1.campaignd:7101")
            #expect(path(config, "data", "DELIVERYD_CAMPAIGN_UPDATES") as? String == "tcp://campaignd-0.campaignd:7102,tcp://campaignd-1.campaignd:7102")
            #expect(path(budget, "spec", "minAvailable") as? Int == 1)
        }
        checkPair(document("StatefulSet", "campaignd"), document("ConfigMap", "deliveryd-config"), document("PodDisruptionBudget", "campaignd"))

        guard let kubectl = onPath("kubectl") else { return }
        let (status, output) = try await run(kubectl, ["kustomize", Repository.root.appendingPathComponent(folder).path])
        #expect(status == 0, "kubectl kustomize: \(output)")
        let rendered = try Yams.load_all(yaml: output).compactMap { $0 as? Object }
        func renderedObject(_ kind: String, _ name: String) -> Object? {
            rendered.first { $0["kind"] as? String == kind && path($0, "metadata", "name") as? String == name }
        }
        let statefulSet = renderedObject("StatefulSet", "campaignd")
        checkPair(statefulSet, renderedObject("ConfigMap", "deliveryd-config"), renderedObject("PodDisruptionBudget", "campaignd"))
        // The patch adds to the base's container rather than replacing it: its configuration and keys stay.
        let container = (path(statefulSet, "spec", "template", "spec", "containers") as? [Object])?.first
        #expect((container?["envFrom"] as? [Object])?.isEmpty == false && (container?["volumeMounts"] as? [Object])?.count == 3)
        #expect(rendered.allSatisfy { path($0, "metadata", "namespace") as? String == "launchad" || $0["kind"] as? String == "Namespace" })
    }

    @Test("Kubernetes with a relay: deploy/k8s-relays runs relayd with its cache on a claim and its keys read-only, campaignd admits the relay, the edges follow it; kubectl renders it where installed")
    func kubernetesRelays() async throws {
        let folder = "deploy/k8s-relays"
        let kustomization = try #require(try Repository.yamlDocuments("\(folder)/kustomization.yaml").first as? Object)
        let resources = (kustomization["resources"] as? [String]) ?? []
        let patches = ((kustomization["patches"] as? [Object]) ?? []).compactMap { $0["path"] as? String }
        #expect(resources.contains("../k8s"), "the overlay builds on deploy/k8s")
        let files = Repository.deployFiles().filter { $0.hasPrefix("\(folder)/") && !$0.hasSuffix("kustomization.yaml") }
        #expect(Set(files) == Set((resources.filter { $0 != "../k8s" } + patches).map { "\(folder)/\($0)" }), "every file is a resource or a patch")
        func path(_ object: Any?, _ keys: String...) -> Any? { keys.reduce(object) { ($0 as? Object)?[$1] } }
        func check(_ objects: [Object]) {
            func object(_ kind: String, _ name: String) -> Object? {
                objects.first { $0["kind"] as? String == kind && path($0, "metadata", "name") as? String == name }
            }
            let relay = object("StatefulSet", "relayd")
            let container = (path(relay, "spec", "template", "spec", "containers") as? [Object])?.first
            let arguments = (container?["args"] as? [String]) ?? []
            let cacheDirectory = arguments.firstIndex(of: "--cache-dir").map { arguments[$0 + 1] }
            let claim = (path(relay, "spec", "volumeClaimTemplates") as? [Object])?.first.flatMap { path($0, "metadata", "name") as? String }
            let mounts = (container?["volumeMounts"] as? [Object]) ?? []
            #expect(claim != nil && mounts.contains { $0["name"] as? String == claim && $0["mountPath"] as? String == cacheDirectory })
            #expect(mounts.contains { $0["name"] as? String == "keys" && $0["readOnly"] as? Bool == true })
            #expect(path(container, "readinessProbe", "httpGet", "path") as? String == "/healthz")
            #expect(((container?["env"] as? [Object]) ?? []).contains { $0["name"] as? String == "RELAYD_RELAY_ID"
                                                                          && path($0, "valueFrom", "fieldRef", "fieldPath") as? String == "metadata.name" })
            let relayItems = ((path(relay, "spec", "template", "spec", "volumes") as? [Object]) ?? [])
                .compactMap { path($0, "secret", "items") as? [Object] }.flatMap { $0 }.compactMap { $0["path"] as? String }
            #expect(relayItems.contains("relay.key") && relayItems.contains("campaignd.pub") && relayItems.contains("edges/deliveryd-0.pub"))
            #expect(path(object("ConfigMap", "deliveryd-config"), "data", "DELIVERYD_CAMPAIGN_SYNC") as? String == "tcp://relayd-0.relayd:7301")
            #expect(path(object("ConfigMap", "deliveryd-config"), "data", "DELIVERYD_CAMPAIGN_UPDATES") as? String == "tcp://relayd-0.relayd:7302")
            let campaigndItems = ((path(object("StatefulSet", "campaignd"), "spec", "template", "spec", "volumes") as? [Object]) ?? [])
                .compactMap { path($0, "secret", "items") as? [Object] }.flatMap { $0 }.compactMap { $0["path"] as? String }
            #expect(campaigndItems.contains("relays/relayd-0.pub"), "campaignd does not admit the relay")
            // campaignd checks the seals of the edges behind the relay with their keys; they seal for its own (origin.pub).
            #expect(campaigndItems.contains("edges/deliveryd-0.pub"), "campaignd does not list the edges behind the relay")
            let edgeMounts = ((path(object("StatefulSet", "deliveryd"), "spec", "template", "spec", "containers") as? [Object])?.first?["volumeMounts"] as? [Object]) ?? []
            #expect(edgeMounts.contains { $0["mountPath"] as? String == "/etc/launchad/keys/origin.pub" && $0["subPath"] as? String == "origin.pub" },
                    "the edges behind the relay do not read campaignd's key as origin.pub")
        }
        var documents: [Object] = []
        for file in files { documents += try Repository.yamlDocuments(file).compactMap { $0 as? Object } }
        check(documents)

        guard let kubectl = onPath("kubectl") else { return }
        let (status, output) = try await run(kubectl, ["kustomize", Repository.root.appendingPathComponent(folder).path])
        #expect(status == 0, "kubectl kustomize: \(output)")
        let rendered = try Yams.load_all(yaml: output).compactMap { $0 as? Object }
        check(rendered)
        // The campaignd patch replaces the keys volume's items only: its container keeps its mounts.
        let campaignd = rendered.first { $0["kind"] as? String == "StatefulSet" && path($0, "metadata", "name") as? String == "campaignd" }
        #expect(((path(campaignd, "spec", "template", "spec", "containers") as? [Object])?.first?["volumeMounts"] as? [Object])?.isEmpty == false)
        // The edges' patch adds origin.pub to the base's mounts: edge.key, campaignd.pub and the cache stay.
        let deliveryd = rendered.first { $0["kind"] as? String == "StatefulSet" && path($0, "metadata", "name") as? String == "deliveryd" }
        let edgeMounts = ((path(deliveryd, "spec", "template", "spec", "containers") as? [Object])?.first?["volumeMounts"] as? [Object]) ?? []
        #expect(Set(edgeMounts.compactMap { $0["mountPath"] as? String }).isSuperset(of: ["/etc/launchad/keys/edge.key", "/etc/launchad/keys/campaignd.pub",
                                                                                           "/etc/launchad/keys/origin.pub"]), "\(edgeMounts)")
        #expect(rendered.allSatisfy { path($0, "metadata", "namespace") as? String == "launchad" || $0["kind"] as? String == "Namespace" })
    }

    @Test("Dockerfiles: multi-stage, release build of the product, slim runtime with libzmq5, non-root user, DESIGN's ports, a health check")
    func dockerfiles() throws {
        let expectations: [(file: String, product: String, ports: Set<String>, volume: String)] = [
            ("deploy/docker/campaignd.Dockerfile", "campaignd", ["7100", "7101", "7102", "8100"], "/var/lib/campaignd"),
            ("deploy/docker/deliveryd.Dockerfile", "deliveryd", ["7200", "8200"], "/var/cache/deliveryd"),
            ("deploy/docker/relayd.Dockerfile", "relayd", ["7301", "7302", "8300"], "/var/cache/relayd"),
        ]
        for expected in expectations {
            let lines = try Self.dockerInstructions(Repository.text(expected.file))
            let froms = lines.enumerated().filter { $0.element.hasPrefix("FROM ") }
            #expect(froms.count >= 2, "\(expected.file) is not multi-stage")
            let finalStage = lines[(froms.last?.offset ?? 0)...]
            let arguments = Dictionary(lines.filter { $0.hasPrefix("ARG ") && $0.contains("=") }.map { line -> (String, String) in
                let pair = line.dropFirst(4).split(separator: "=", maxSplits: 1).map(String.init)
                return (pair[0], pair[1])
            }, uniquingKeysWith: { first, _ in first })
            func resolved(_ image: String) -> String {
                image.hasPrefix("${") ? arguments[String(image.dropFirst(2).dropLast())] ?? image : image
            }
            let finalImage = resolved(String(froms.last?.element.split(separator: " ")[1] ?? ""))
            #expect(finalImage == "debian:bookworm-slim", "\(expected.file): runtime image \(finalImage)")
            let builder = resolved(String(froms.first?.element.split(separator: " ")[1] ?? ""))
            #expect(builder.hasPrefix("swift:6"), "\(expected.file): builder \(builder)")
            #expect(lines.contains { $0.contains("swift build -c release") && $0.contains("--product \(expected.product)") })
            #expect(lines.contains { $0.contains("libzmq3-dev") })
            #expect(finalStage.contains { $0.hasPrefix("RUN ") && $0.contains("libzmq5") })
            #expect(finalStage.contains { $0.hasPrefix("COPY --from=") })
            let user = finalStage.last { $0.hasPrefix("USER ") }.map { String($0.dropFirst(5)) }
            #expect(user != nil && !["root", "0", "root:root", "0:0"].contains(user!), "\(expected.file) runs as \(user ?? "root")")
            let exposed = Set(finalStage.filter { $0.hasPrefix("EXPOSE ") }.flatMap { $0.split(separator: " ").dropFirst().map(String.init) })
            #expect(exposed == expected.ports, "\(expected.file) exposes \(exposed)")
            #expect(finalStage.contains { $0.hasPrefix("VOLUME ") && $0.contains(expected.volume) })
            #expect(finalStage.contains { $0.hasPrefix("HEALTHCHECK ") && $0.contains("/usr/local/bin/launchad-healthz") })
            #expect(finalStage.contains { $0.hasPrefix("ENTRYPOINT ") && $0.contains("/usr/local/bin/\(expected.product)") })
        }
        let ignored = try Repository.text(".dockerignore").split(separator: "\n").map(String.init)
        #expect(ignored.contains(".build") && ignored.contains(".git") && ignored.contains("deploy/compose/keys"))
    }

    /// A Dockerfile's instructions, one per element, continuation lines joined and comments dropped.
    static func dockerInstructions(_ text: String) -> [String] {
        var instructions: [String] = []
        var current = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") {
                current += line.dropLast() + " "
                continue
            }
            current += line
            let joined = current.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            if !joined.isEmpty { instructions.append(joined) }
            current = ""
        }
        return instructions
    }

    @Test("systemd units: hardened, credentials for keys, an environment file; `systemd-analyze verify` finds nothing")
    func systemdUnits() async throws {
        let units = ["campaignd.service", "deliveryd@.service"]
        for unit in units {
            let text = try Repository.text("deploy/systemd/\(unit)")
            let settings = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && $0.contains("=") }
            func has(_ setting: String) -> Bool { settings.contains(setting) }
            func hasKey(_ key: String) -> Bool { settings.contains { $0.hasPrefix("\(key)=") && $0.count > key.count + 1 } }
            for required in ["NoNewPrivileges=yes", "ProtectSystem=strict", "PrivateTmp=yes", "ProtectHome=yes", "CapabilityBoundingSet=",
                             "SystemCallFilter=@system-service", "DynamicUser=yes"] {
                #expect(has(required), "\(unit) lacks \(required)")
            }
            for key in ["RestrictAddressFamilies", "ReadWritePaths", "EnvironmentFile", "LoadCredential", "ExecStart"] {
                #expect(hasKey(key), "\(unit) lacks \(key)=")
            }
            // The edge's update stream thread may go to nice -5 (`--updates-priority`'s default) with no capability.
            if unit.hasPrefix("deliveryd") { #expect(has("LimitNICE=-\(Self.updatesPriority)"), "\(unit)") }
        }
        guard let analyze = onPath("systemd-analyze") else { return }
        // Verified as installed, with the binaries where this build put them.
        let directory = try makeTemporaryDirectory("units")
        defer { removeTemporaryDirectory(directory) }
        for unit in units {
            let text = try Repository.text("deploy/systemd/\(unit)")
                .replacingOccurrences(of: "/usr/local/bin/", with: ChildProcess.productsDirectory.path + "/")
            try text.write(to: directory.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
        let (status, output) = try await run(analyze, ["verify", directory.appendingPathComponent("campaignd.service").path,
                                                       directory.appendingPathComponent("deliveryd@.service").path + ":deliveryd@edge-1.service"])
        #expect(status == 0 && output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "systemd-analyze verify: \(output)")
    }

    @Test("every flag and CAMPAIGND_/DELIVERYD_/RELAYD_ variable the deploy files give is one the programs' --help lists")
    func flagsAreReal() async throws {
        let options = [
            "campaignd": try await ProgramOptions.of("campaignd"),
            "deliveryd": try await ProgramOptions.of("deliveryd"),
            "relayd": try await ProgramOptions.of("relayd"),
            "adctl keygen": try await ProgramOptions.of("adctl", ["keygen"]),
        ]
        var uses: [(program: String, flag: String, file: String)] = []

        // Command lines written out in scripts, units, Dockerfiles and docs: `.../campaignd --flag ...`.
        for file in Repository.deployFiles() {
            let text = try Repository.text(file).replacingOccurrences(of: "\\\n", with: " ")
            for line in text.split(separator: "\n").map(String.init) {
                for (program, flags) in Self.commandLines(in: line) { uses += flags.map { (program, $0, file) } }
            }
            // Variables: the prefix says whose.
            for variable in matches(of: #"\b(?:CAMPAIGND|DELIVERYD|RELAYD)_[A-Z0-9_]+\b"#, in: text) {
                let program = variable.hasPrefix("CAMPAIGND_") ? "campaignd" : variable.hasPrefix("RELAYD_") ? "relayd" : "deliveryd"
                #expect(options[program]!.environment.contains(variable), "\(file): \(variable) is not a variable of \(program)")
            }
        }
        // Arguments in YAML: compose `command` (the image's entrypoint is the program), k8s `command` + `args`.
        for composeFile in ["deploy/compose/compose.yaml", "deploy/compose/compose.relays.yaml"] {
        let compose = try #require(try Repository.yamlDocuments(composeFile).first as? Object)
        for (_, service) in (compose["services"] as? [String: Object]) ?? [:] {
            let program = ((service["image"] as? String) ?? "").split(separator: "/").last?.split(separator: ":").first.map(String.init) ?? ""
            for flag in ((service["command"] as? [String]) ?? []).filter({ $0.hasPrefix("--") }) {
                uses.append((program, String(flag.prefix { $0 != "=" }), composeFile))
            }
        }
        }
        for file in Repository.deployFiles() where file.hasPrefix("deploy/k8s/") {
            for case let document as Object in try Repository.yamlDocuments(file) {
                let spec = ((document["spec"] as? Object)?["template"] as? Object)?["spec"] as? Object
                for container in (spec?["containers"] as? [Object]) ?? [] {
                    let command = (container["command"] as? [String]) ?? []
                    let program = URL(fileURLWithPath: command.first ?? "").lastPathComponent
                    for flag in (command.dropFirst() + ((container["args"] as? [String]) ?? [])).filter({ $0.hasPrefix("--") }) {
                        uses.append((program, String(flag.prefix { $0 != "=" }), file))
                    }
                }
            }
        }
        #expect(uses.count >= 10, "\(uses)")
        #expect(Set(uses.map(\.program)).isSuperset(of: ["campaignd", "deliveryd", "adctl keygen"]))
        for use in uses {
            let known = try #require(options[use.program], "\(use.file): \(use.flag) for an unknown program \(use.program)")
            #expect(known.flags.contains(use.flag), "\(use.file): \(use.program) has no flag \(use.flag)")
        }
    }

    /// The flags given to campaignd, deliveryd or `adctl keygen` on one command line of a script or document:
    /// the program named as a command (`campaignd`, `/usr/local/bin/campaignd`, `"$BIN/campaignd"`, not the value
    /// of another flag such as `--product campaignd`), then its flags, each with at most one value.
    static func commandLines(in line: String) -> [(String, [String])] {
        var found: [(String, [String])] = []
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"'`$()"))
        }
        var index = 0
        while index < words.count {
            let word = words[index]
            let base = word.split(separator: "/").last.map(String.init) ?? ""
            let previous = index > 0 ? words[index - 1] : ""
            var program: String?
            if previous.hasPrefix("-") || word.hasPrefix("-") {
                program = nil
            } else if ["campaignd", "deliveryd"].contains(base) {
                program = base
            } else if base == "adctl" || base == "ADCTL", index + 1 < words.count, words[index + 1] == "keygen" {
                program = "adctl keygen"
                index += 1
            }
            index += 1
            guard let program else { continue }
            var flags: [String] = []
            while index < words.count, let flag = words[index].range(of: "^--[a-z][a-z0-9-]*", options: .regularExpression) {
                flags.append(String(words[index][flag]))
                index += 1
                if index < words.count, !words[index].hasPrefix("-"), !words[index].contains("="), !words[index].hasPrefix(">") {
                    index += 1
                }
            }
            if !flags.isEmpty { found.append((program, flags)) }
        }
        return found
    }

    @Test("deploy/README.md's tables of flags and variables list exactly what each program's --help does")
    func readmeTables() async throws {
        let readme = try Repository.text("deploy/README.md")
        for program in ["campaignd", "deliveryd"] {
            let options = try await ProgramOptions.of(program)
            let section = try #require(readme.components(separatedBy: "\n### \(program)\n").dropFirst().first?
                .components(separatedBy: "\n#").first, "deploy/README.md has no section ### \(program)")
            let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `--") }.map(String.init)
            let documented = Set(rows.flatMap { matches(of: #"^\| `(--[a-z][a-z0-9-]*)"#, in: $0, group: 1) })
            let variables = Set(rows.flatMap { matches(of: #"\b(?:CAMPAIGND|DELIVERYD)_[A-Z0-9_]+\b"#, in: $0) })
            #expect(documented == options.flags.subtracting(["--help"]), "\(program): the README documents \(documented.sorted()), --help lists \(options.flags.sorted())")
            #expect(variables == options.environment, "\(program): the README documents \(variables.sorted()), --help lists \(options.environment.sorted())")
        }
    }

    @Test("the healthz script: 0 for a serving campaignd, 1 for an edge with no state yet or nothing listening, 2 for a bad address")
    func healthCheckScript() async throws {
        let script = Repository.deploy.appendingPathComponent("docker/healthz.sh").path
        let bash = URL(fileURLWithPath: "/bin/bash")
        try await withStopping(CampaignFixture()) { fixture in
            let http = try #require(fixture.endpoints["http"])
            var result = try await run(bash, [script, http])
            #expect(result.status == 0, "\(result.output)")
            // As in the image: no argument, the service's own variable, a wildcard host.
            let port = http.split(separator: ":").last.map(String.init) ?? ""
            result = try await run(bash, [script], environment: ["CAMPAIGND_HTTP_ADDRESS": "0.0.0.0:\(port)"])
            #expect(result.status == 0, "\(result.output)")

            // An edge that cannot reach campaignd holds no state: /healthz is 503.
            let directory = try makeTemporaryDirectory("healthz")
            defer { removeTemporaryDirectory(directory) }
            let ready = directory.appendingPathComponent("ready.json")
            let nowhere = "ipc://\(directory.path)/nobody"
            let edge = try ChildProcess("deliveryd", ["--cache-dir", directory.appendingPathComponent("cache").path,
                                                      "--campaign-sync", nowhere + "-sync", "--campaign-updates", nowhere + "-updates",
                                                      "--client-endpoint", "tcp://127.0.0.1:0", "--http-address", "127.0.0.1:0",
                                                      "--ready-file", ready.path], directory: directory)
            let edgeEndpoints = try await ChildProcess.waitForReadyFile(ready)
            result = try await run(bash, [script, try #require(edgeEndpoints["http"])])
            #expect(result.status == 1 && result.output.contains("503"), "\(result.output)")
            edge.signal(SIGTERM)
            _ = await edge.exitStatus()

            // Nothing listening (the edge is gone), and addresses that are not host:port.
            result = try await run(bash, [script, edgeEndpoints["http"]!])
            #expect(result.status == 1, "\(result.output)")
            result = try await run(bash, [script, "localhost:http"])
            #expect(result.status == 2, "\(result.output)")
            result = try await run(bash, [script], environment: ["CAMPAIGND_HTTP_ADDRESS": "", "DELIVERYD_HTTP_ADDRESS": ""])
            #expect(result.status == 2, "\(result.output)")
        }
    }
}
