import Foundation
import Locking
import Logging
import ServiceLifecycle

/// Saves the devices' caps and rotation (``DeviceFile``) every few seconds while reports change them, and once more
/// on the way out, so that a restart does not show a capped ad again.
final class DeviceSaver: Service {
    let history: DeviceHistory
    let file: DeviceFile
    let interval: Duration
    let logger: Logger
    /// Where the file is written (its fsyncs off the tasks' shared threads).
    private let disk = DispatchQueue(label: "deliveryd.device-save")
    private struct Progress {
        /// The history's change count the last save saw.
        var saved = 0
        /// Whether the last save failed (it is said once, not every round).
        var failing = false
    }
    private let progress = Locked(Progress())

    init(history: DeviceHistory, file: DeviceFile, interval: Duration, logger: Logger) {
        self.history = history
        self.file = file
        self.interval = interval
        self.logger = logger
        let changes = history.changeCount
        progress.withLock { $0.saved = changes }
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: self.interval)) != nil {
                await self.save()
            }
        }
        await save()
    }

    /// Writes the file when the history changed since the last save; returns whether it is up to date.
    @discardableResult
    func save() async -> Bool {
        let changes = history.changeCount
        guard progress.withLock({ $0.saved != changes }) else { return true }
        let result: Result<DeviceFile.Saved, any Error> = await disk.perform { Result { try self.file.save(self.history) } }
        let error: (any Error)? = if case .failure(let error) = result { error } else { nil }
        // A walk that may have missed devices (the history's slots laid out anew meanwhile) leaves the save owed:
        // the next round writes the file again.
        let whole = (try? result.get().whole) ?? false
        if error == nil && !whole { logger.debug("the devices' file was written while the history moved; written again next round") }
        let changed = progress.withLock { progress in
            if error == nil && whole { progress.saved = changes }
            defer { progress.failing = error != nil }
            return progress.failing != (error != nil)
        }
        if changed, let error {
            logger.error("cannot write the devices' caps and rotation; a restart would forget what came since the last save",
                         metadata: ["file": "\(file.url.path)", "error": "\(error)"])
        } else if changed {
            logger.info("the devices' file is written again", metadata: ["file": "\(file.url.path)"])
        }
        return error == nil
    }
}
