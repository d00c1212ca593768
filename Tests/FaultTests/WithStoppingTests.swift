import Foundation
import LaunchAdTesting
import Testing

/// The scope tests stop their fixtures with (``withStopping(_:isolation:_:)``): the stop is awaited whether the body
/// returns or throws, nested scopes stop the inner fixture first, and the harnesses' stops may be called again.
@Suite("fixtures stopped by a scope", .timeLimit(.minutes(2)))
struct WithStoppingTests {
    struct Failure: Error {}

    /// What happened, in order.
    actor Events {
        private(set) var list: [String] = []
        func note(_ event: String) { list.append(event) }
    }

    /// A fixture whose stop takes a moment and then says so: a stop that was not awaited has not said it yet.
    final class Slow: Stoppable {
        let name: String
        let events: Events

        init(_ name: String, _ events: Events) {
            self.name = name
            self.events = events
        }

        func stop() async {
            try? await Task.sleep(for: .milliseconds(50))
            await events.note("\(name) stopped")
        }
    }

    @Test("a body that throws: its fixtures are stopped, the inner first, before the error comes out; one that returns gives its value after the stop")
    func order() async throws {
        let events = Events()
        do {
            try await withStopping(Slow("outer", events)) { _ in
                try await withStopping(Slow("inner", events)) { _ in
                    await events.note("body")
                    throw Failure()
                }
            }
            Issue.record("the body's error did not come out")
        } catch is Failure {}
        #expect(await events.list == ["body", "inner stopped", "outer stopped"])

        let value = await withStopping(Slow("returning", events)) { _ in 42 }
        #expect(value == 42)
        #expect(await events.list.last == "returning stopped")
    }

    @Test("campaignd and an edge whose test throws: both exited on SIGTERM and campaignd's folder is gone when the error comes out; stopping them again does nothing")
    func processes() async throws {
        var started: (CampaignFixture, EdgeProcess)?
        do {
            try await withStopping(CampaignFixture()) { fixture in
                try await withStopping(fixture.startEdge("edge-scoped")) { edge in
                    started = (fixture, edge)
                    throw Failure()
                }
            }
            Issue.record("the body's error did not come out")
        } catch is Failure {}
        let (fixture, edge) = try #require(started)
        #expect(edge.process.terminationStatus == 0, "\(edge.log.suffix(1500))")
        #expect(fixture.process.terminationStatus == 0, "\(fixture.process.log.suffix(1500))")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path))

        let clock = ContinuousClock()
        let again = clock.now
        await edge.stop()
        await edge.stop(signal: SIGKILL)
        await fixture.stop()
        #expect(clock.now - again < .seconds(1), "stopping again took \(clock.now - again)")
        #expect(edge.process.terminationStatus == 0 && fixture.process.terminationStatus == 0)
    }
}
