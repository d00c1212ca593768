import Foundation
import LaunchAdDomain

/// Column-aligned tables for people. Every cell is escaped as ``DisplayText`` says: names, edge ids and regions come
/// from peers and from before today's rules, and a newline in one must not forge a row, nor an escape sequence drive
/// the operator's terminal.
enum Table {
    static func print(_ header: [String], _ rows: [[String]]) {
        let all = ([header] + rows).map { $0.map(DisplayText.escaped) }
        var widths = header.map(\.count)
        for row in all { for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) } }
        for row in all {
            let line = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            Swift.print(line)
        }
    }

    static func campaigns(_ campaigns: [Campaign]) {
        print(["ID", "NAME", "APP", "STATE", "PRI", "WEIGHT", "FORCED", "STARTS", "ENDS", "V"], campaigns.map { c in
            [String(c.id), c.name, c.app, c.state.rawValue, String(c.priority), String(c.weight), c.forced ? "yes" : "",
             c.startsAt.rfc3339, c.endsAt.rfc3339, String(c.version)]
        })
    }
}
