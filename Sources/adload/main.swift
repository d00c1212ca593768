import Foundation

// The load generator arrives with its own issue; until then say so plainly instead of pretending.
FileHandle.standardError.write(Data("adload: not available yet in this build\n".utf8))
exit(2)
