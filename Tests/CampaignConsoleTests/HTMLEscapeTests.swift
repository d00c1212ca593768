@testable import CampaignConsole
import Testing

@Suite("The console's one escaping function", .timeLimit(.minutes(1)))
struct HTMLEscapeTests {
    @Test("Markup characters become entities, and controls and bidirectional controls (a name stored before their rule) visible escapes")
    func escape() {
        #expect(HTML.escape("<b title='x'>\"A\" & `b`</b>") == "&lt;b title=&#39;x&#39;&gt;&quot;A&quot; &amp; &#96;b&#96;&lt;/b&gt;")
        #expect(HTML.escape("Invoice \u{202E}gpj.exe\n\u{1B}[2J\u{0}") == #"Invoice \u{202E}gpj.exe\u{0A}\u{1B}[2J\u{00}"#)
        #expect(HTML.escape("双十二 👨‍👩‍👧 a\u{200B}b") == "双十二 👨‍👩‍👧 a\u{200B}b")
    }
}
