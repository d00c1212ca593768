import Foundation
import LaunchAdKit
import LaunchAdTesting
import Testing

@Suite("LaunchAdKit's SHA-256 is the standard's", .timeLimit(.minutes(1)))
struct SHA256DigestTests {
    @Test("FIPS 180-4's vectors, and block boundaries")
    func vectors() {
        #expect(SHA256Digest.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Digest.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // The message and its padding across one and two blocks.
        #expect(SHA256Digest.hex([UInt8](repeating: 0, count: 55)) == "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7")
        #expect(SHA256Digest.hex([UInt8](repeating: 0, count: 64)) == "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b")
    }

    @Test("a creative's digest is the name campaignd gives it")
    func sameAsTheServers() async throws {
        try await withCampaignService { fixture in
            let admin = try fixture.admin()
            for seed in 0..<3 {
                let sha256 = try await fixture.uploadPNG(admin, width: 1080, height: 1920, seed: seed)
                #expect(SHA256Digest.hex(CampaignFixture.png(width: 1080, height: 1920, seed: seed)) == sha256)
            }
            await admin.close()
        }
    }
}
