import Foundation

/// The files of `folder` that a service set aside in place of its file `name` (`NAME.unusable-…`, see DurableFiles'
/// `SetAsideFile`), by name.
public func filesSetAside(_ name: String, in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(name + ".unusable-") }.sorted()
}
