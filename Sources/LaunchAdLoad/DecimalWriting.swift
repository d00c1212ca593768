/// Writes `value` in decimal at `destination`, returning the number of bytes written (at most 20).
@inline(__always)
func writeDecimal(_ value: UInt64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
    var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
    return withUnsafeMutableBytes(of: &scratch) { raw in
        var number = value
        var index = 24
        repeat {
            index -= 1
            raw[index] = UInt8(ascii: "0") &+ UInt8(number % 10)
            number /= 10
        } while number > 0
        let count = 24 - index
        destination.update(from: raw.baseAddress!.advanced(by: index).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }
}
