// The codec's fuzz target. Built by `fuzz/run.sh` with `-sanitize=fuzzer -D FUZZING`, it is a libFuzzer binary
// whose every input must keep the invariants of `CodecInvariants` (a broken one traps, and libFuzzer saves the
// input). Built plainly (as `swift build` does), it replays inputs instead:
//
//     codec-fuzz FILE|DIR...          check each file (or each file in each folder); exit 1 on a violation
//     codec-fuzz --write-seeds DIR    write the seed corpus (one request of each public method, and a few more)
import CodecFuzzing
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Checks one input; prints what broke.
func violations(of bytes: [UInt8]) -> [InvariantViolation] {
    CodecInvariants.check(bytes)
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let broken = violations(of: bytes)
    if !broken.isEmpty {
        fatalError("invariant broken: \(broken.map(\.description).joined(separator: "; "))")
    }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

// SwiftPM links an executable's entry point as `<module>_main`; libFuzzer runs the inputs from there.
@_cdecl("codec_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, testOneInput)
}
#else
@main
enum Replay {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--write-seeds" {
            guard arguments.count == 2 else { return usage() }
            let folder = URL(fileURLWithPath: arguments[1])
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for sample in HostileInputs.samples {
                try Data(sample.json.utf8).write(to: folder.appendingPathComponent(sample.name + ".json"))
            }
            print("wrote \(HostileInputs.samples.count) seeds to \(folder.path)")
            return
        }
        guard !arguments.isEmpty, !arguments.contains(where: { $0.hasPrefix("-") }) else { return usage() }
        var files: [URL] = []
        for argument in arguments {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("codec-fuzz: no such file or folder: \(argument)\n".utf8))
                exit(2)
            }
            let url = URL(fileURLWithPath: argument)
            if isFolder.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: argument).sorted()
                files += names.map { url.appendingPathComponent($0) }
            } else {
                files.append(url)
            }
        }
        var failed = 0
        for file in files {
            let broken = violations(of: [UInt8](try Data(contentsOf: file)))
            if !broken.isEmpty {
                failed += 1
                print("\(file.path): \(broken.map(\.description).joined(separator: "; "))")
            }
        }
        print("checked \(files.count) inputs, \(failed) broke an invariant")
        exit(failed == 0 ? 0 : 1)
    }

    static func usage() {
        FileHandle.standardError.write(Data("usage: codec-fuzz FILE|DIR... | codec-fuzz --write-seeds DIR\n".utf8))
        exit(2)
    }
}
#endif
