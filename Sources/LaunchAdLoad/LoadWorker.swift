#if canImport(Glibc)
import Glibc
#endif
import Histogram
import SeededRandomness
import Synchronization
import CZeroMQ
import ZeroMQ

/// One thread's share of the connections, run on that thread only (its sockets never leave it).
///
/// The loop is written for speed: per-slot state in raw buffers, counters in locals, libzmq called directly, so that
/// the client costs about what the reference C client costs and the server stays the bottleneck.
final class LoadWorker {
    struct Totals: Sendable {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1_000, highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
        var completed = 0
        var ok = 0
        var withAd = 0
        var errorsByCode: [Int: Int] = [:]
        var invalid = 0
        var timeouts = 0
        var late = 0
        var sendFailures = 0
        var lastReply: UInt64 = 0

        var errors: Int { errorsByCode.values.reduce(0, +) + invalid + timeouts }
    }

    private static let kindQuery: UInt8 = 0, kindPrefetch: UInt8 = 1, kindReport: UInt8 = 2

    private let configuration: LoadConfiguration
    private let arena: TemplateArena
    private let progress: LoadProgress
    private let workerIndex: Int
    private let sockets: [Socket]
    private let window: Int
    private let totalSlots: UInt64
    private let slotBase: Int
    private let slotCount: Int
    private let deviceCount: Int
    private let runNonce: UInt64

    // Per slot: when its request was due (ns), its generation, busy flag, device and kind.
    private let slotTime: UnsafeMutablePointer<UInt64>
    private let slotGeneration: UnsafeMutablePointer<UInt64>
    private let slotBusy: UnsafeMutablePointer<Bool>
    private let slotDevice: UnsafeMutablePointer<Int32>
    private let slotKind: UnsafeMutablePointer<UInt8>
    /// Per local device: the campaign its last launch answer showed (-1: none; 0: no answer yet), for reports.
    private let lastCampaign: UnsafeMutablePointer<Int64>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let bufferSize: Int
    private let report: ReportTemplate
    private let message: UnsafeMutablePointer<zmq_msg_t>
    private(set) var totals = Totals()

    init(index: Int, connections: Range<Int>, configuration: LoadConfiguration, arena: TemplateArena,
         population: Population, progress: LoadProgress, context: ZMQContext, runNonce: UInt64) throws {
        self.configuration = configuration
        self.arena = arena
        self.progress = progress
        self.runNonce = runNonce
        workerIndex = index
        window = configuration.window
        totalSlots = UInt64(configuration.connections * configuration.window)
        slotBase = connections.lowerBound * configuration.window
        slotCount = connections.count * configuration.window
        slotTime = .allocate(capacity: slotCount)
        slotTime.initialize(repeating: 0, count: slotCount)
        slotGeneration = .allocate(capacity: slotCount)
        slotGeneration.initialize(repeating: 0, count: slotCount)
        slotBusy = .allocate(capacity: slotCount)
        slotBusy.initialize(repeating: false, count: slotCount)
        slotDevice = .allocate(capacity: slotCount)
        slotDevice.initialize(repeating: 0, count: slotCount)
        slotKind = .allocate(capacity: slotCount)
        slotKind.initialize(repeating: 0, count: slotCount)
        deviceCount = (population.devices.count - index + configuration.threads - 1) / configuration.threads
        lastCampaign = .allocate(capacity: deviceCount)
        lastCampaign.initialize(repeating: 0, count: deviceCount)
        report = ReportTemplate(runNonce: runNonce, worker: index)
        bufferSize = RequestTemplates.head.count + 24 + max(arena.longest, report.longest(idBytes: arena.longest), 1024)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bufferSize)
        RequestTemplates.head.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: $0.count) }
        self.buffer = buffer
        message = .allocate(capacity: 1)
        zmq_msg_init(message)
        var made: [Socket] = []
        for _ in connections {
            let socket = try Socket(context, type: .dealer)
            try socket.setLinger(milliseconds: 0)
            try socket.setSendHighWaterMark(1_000_000)
            try socket.setReceiveHighWaterMark(1_000_000)
            try socket.setMaxMessageSize(16 * 1024 * 1024)
            if let curve = configuration.curve { try socket.makeCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair) }
            try socket.connect(configuration.endpoint)
            made.append(socket)
        }
        sockets = made
    }

    deinit {
        for pointer in [slotTime, slotGeneration] as [UnsafeMutablePointer<UInt64>] { pointer.deallocate() }
        slotBusy.deallocate()
        slotDevice.deallocate()
        slotKind.deallocate()
        lastCampaign.deallocate()
        buffer.deallocate()
        zmq_msg_close(message)
        message.deallocate()
        for socket in sockets { socket.close() }
    }

    /// Runs from the warm-up until the end of the measured window; the totals are filled in when it returns.
    func run(measureStart: UInt64, measureEnd: UInt64) throws {
        var totals = Totals()
        var random = SeededRandom(seed: configuration.seed &+ 0x51ED_270B_27D4_EB2F &* UInt64(workerIndex + 1))
        var eventCounter: UInt64 = 0
        var items = sockets.map { zmq_pollitem_t(socket: $0.handle, fd: -1, events: Int16(ZMQ_POLLIN), revents: 0) }
        let handles = sockets.map(\.handle)
        var freeSlots: [[Int]] = (0..<sockets.count).map { connection in Array((connection * window..<(connection + 1) * window).reversed()) }
        let timeoutNanoseconds = UInt64(configuration.timeout * 1e9)
        let requestLimit = configuration.requests.map { ($0 + configuration.threads - 1 - workerIndex) / configuration.threads } ?? Int.max
        let openLoop = configuration.rate != nil
        let interval = configuration.rate.map { 1e9 * Double(configuration.threads) / $0 } ?? 0
        var measuredSent = 0
        var outstanding = 0
        var sending = true
        var lastScan = monotonicNanoseconds()
        var reported = (completed: 0, errors: 0)
        let start = monotonicNanoseconds()
        var dueIndex: UInt64 = 0
        var nextConnection = 0

        @inline(__always)
        func dispatch(_ slot: Int, _ intended: UInt64) {
            if send(slot: slot, at: intended, random: &random, eventCounter: &eventCounter, totals: &totals) {
                outstanding += 1
                if intended >= measureStart { measuredSent += 1 }
            }
        }

        if !openLoop {
            for slot in 0..<slotCount { dispatch(slot, monotonicNanoseconds()) }
        }
        while true {
            var now = monotonicNanoseconds()
            if sending && (now >= measureEnd || measuredSent >= requestLimit) { sending = false }
            if !sending {
                // The measured window is over; with --requests, wait for the last replies (the timeout scan frees
                // what never comes).
                if outstanding == 0 || configuration.requests == nil || now >= measureEnd &+ 2 &* timeoutNanoseconds { break }
            }
            var pollTimeout = 100
            if openLoop && sending {
                while true {
                    let due = start &+ UInt64(Double(dueIndex) * interval)
                    if due > now {
                        pollTimeout = Int(min((due - now) / 1_000_000, 100))
                        break
                    }
                    guard let slot = Self.takeFreeSlot(&freeSlots, &nextConnection) else { pollTimeout = 10; break }
                    dispatch(slot, due)
                    dueIndex += 1
                    if measuredSent >= requestLimit { sending = false; break }
                }
            }
            let ready = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32($0.count), pollTimeout) }
            if ready < 0 {
                guard errno == EINTR else { throw ZMQError.last("zmq_poll") }
            } else if ready > 0 {
                for connection in 0..<items.count where items[connection].revents & Int16(ZMQ_POLLIN) != 0 {
                    let handle = handles[connection]
                    while zmq_msg_recv(message, handle, ZMQ_DONTWAIT) >= 0 {
                        now = monotonicNanoseconds()
                        let bytes = UnsafeRawBufferPointer(start: zmq_msg_data(message), count: zmq_msg_size(message))
                        guard let slot = handleReply(bytes, now: now, measureStart: measureStart, measureEnd: measureEnd, totals: &totals) else { continue }
                        outstanding -= 1
                        if !openLoop && sending && now < measureEnd && measuredSent < requestLimit {
                            dispatch(slot, now)
                        } else {
                            freeSlots[slot / window].append(slot)
                        }
                    }
                }
            }
            now = monotonicNanoseconds()
            if now &- lastScan > 20_000_000 {
                lastScan = now
                for slot in 0..<slotCount where slotBusy[slot] && now &- slotTime[slot] > timeoutNanoseconds {
                    slotBusy[slot] = false
                    slotGeneration[slot] &+= 1
                    outstanding -= 1
                    if slotTime[slot] >= measureStart { totals.timeouts += 1 }
                    if !openLoop && sending && now < measureEnd { dispatch(slot, now) } else { freeSlots[slot / window].append(slot) }
                }
                let errors = totals.errors
                progress.completed.add(totals.completed - reported.completed, ordering: .relaxed)
                progress.errors.add(errors - reported.errors, ordering: .relaxed)
                reported = (totals.completed, errors)
            }
        }
        progress.completed.add(totals.completed - reported.completed, ordering: .relaxed)
        progress.errors.add(totals.errors - reported.errors, ordering: .relaxed)
        self.totals = totals
    }

    private static func takeFreeSlot(_ freeSlots: inout [[Int]], _ next: inout Int) -> Int? {
        for step in 0..<freeSlots.count {
            let connection = (next + step) % freeSlots.count
            if let slot = freeSlots[connection].popLast() {
                next = connection + 1
                return slot
            }
        }
        return nil
    }

    /// Sends a request from `slot`, timed from `intended`.
    @inline(__always)
    private func send(slot: Int, at intended: UInt64, random: inout SeededRandom, eventCounter: inout UInt64, totals: inout Totals) -> Bool {
        let localDevice = random.index(deviceCount)
        let device = workerIndex + localDevice * configuration.threads
        var kind = Self.kindQuery
        let mix = configuration.mix
        if mix.query < 100 {
            let roll = random.index(100)
            if roll >= mix.query {
                kind = roll < mix.query + mix.prefetch ? Self.kindPrefetch : Self.kindReport
                if kind == Self.kindReport && lastCampaign[localDevice] == 0 { kind = Self.kindQuery }
            }
        }
        let id = slotGeneration[slot] &* totalSlots &+ UInt64(slotBase + slot)
        var length = RequestTemplates.head.count
        length += writeDecimal(id, to: buffer + length)
        if kind == Self.kindReport {
            eventCounter += 1
            length += writeReport(event: eventCounter, device: device, localDevice: localDevice, at: length)
        } else {
            var which = device * TemplateArena.kinds
            if kind == Self.kindPrefetch {
                which += 2
            } else if configuration.hotShare > 0 && random.chance(configuration.hotShare) {
                which += 1
            }
            let count = Int(arena.lengths[which])
            (buffer + length).update(from: arena.base + Int(arena.offsets[which]), count: count)
            length += count
        }
        if zmq_send(sockets[slot / window].handle, buffer, length, ZMQ_DONTWAIT) < 0 {
            totals.sendFailures += 1
            return false
        }
        slotTime[slot] = intended
        slotBusy[slot] = true
        slotDevice[slot] = Int32(localDevice)
        slotKind[slot] = kind
        return true
    }

    /// Writes the report of the device's last launch at `offset` in the send buffer (its request, and the impression of
    /// its campaign or its noAd); returns its length.
    /// (Kept out of `send`, so that the loop around it stays inlined.)
    @inline(never)
    private func writeReport(event: UInt64, device: Int, localDevice: Int, at offset: Int) -> Int {
        let id = device * TemplateArena.kinds + 3
        let deviceId = UnsafeRawBufferPointer(start: arena.base + Int(arena.offsets[id]), count: Int(arena.lengths[id]))
        let app = UnsafeRawBufferPointer(start: arena.base + Int(arena.offsets[id + 1]), count: Int(arena.lengths[id + 1]))
        return report.write(event: event, campaign: UInt64(max(0, lastCampaign[localDevice])), deviceId: deviceId, app: app,
                            to: buffer + offset)
    }

    /// Counts one reply; returns the slot it freed, or nil for a reply to no request of ours.
    @inline(__always)
    private func handleReply(_ bytes: UnsafeRawBufferPointer, now: UInt64, measureStart: UInt64, measureEnd: UInt64, totals: inout Totals) -> Int? {
        let inWindow = now >= measureStart && now <= measureEnd
        let scan = ReplyScan.scan(bytes)
        guard let id = scan.id else {
            if inWindow { totals.invalid += 1 }
            return nil
        }
        let slot = Int(id % totalSlots) - slotBase
        guard slot >= 0, slot < slotCount else {
            if inWindow { totals.invalid += 1 }
            return nil
        }
        guard slotBusy[slot], slotGeneration[slot] == id / totalSlots else {
            totals.late += 1
            return nil
        }
        slotBusy[slot] = false
        slotGeneration[slot] &+= 1
        let sentAt = slotTime[slot]
        if case let .result(campaign) = scan.outcome, slotKind[slot] == Self.kindQuery {
            lastCampaign[Int(slotDevice[slot])] = campaign ?? -1
        }
        // Like the reference client: replies inside the window count; latency only for requests sent inside it.
        guard inWindow else { return slot }
        totals.completed += 1
        totals.lastReply = now
        if sentAt >= measureStart, sentAt <= now { totals.histogram.record(now - sentAt) }
        switch scan.outcome {
        case let .result(campaign):
            totals.ok += 1
            if campaign != nil { totals.withAd += 1 }
        case let .error(code):
            totals.errorsByCode[code, default: 0] += 1
        case .invalid:
            totals.invalid += 1
        }
        return slot
    }
}
