extension Array {
    /// How many of the elements `isBefore` takes, when those it takes are a prefix (a binary search).
    public func partitionPoint(_ isBefore: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
