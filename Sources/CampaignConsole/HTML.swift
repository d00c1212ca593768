import LaunchAdDomain

/// Text made safe for HTML: every character that could end a text node or an attribute value is escaped, so that
/// nothing from a campaign (its name, its jump URL) or from a request can become markup or script; control
/// characters and bidirectional controls (``DisplayText``), which a value stored before that rule may hold, are shown
/// as visible escapes (`\u{202E}`) rather than reordering the page around them.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "`": out += "&#96;"
            default:
                if DisplayText.isUnsafe(character) { out += DisplayText.escape(character) } else { out.unicodeScalars.append(character) }
            }
        }
        return out
    }

    /// `escape` for a value given as anything printable.
    static func escape(_ value: some CustomStringConvertible) -> String { escape(value.description) }
}

/// One page of the console: the frame every page shares (title, navigation, who is signed in) around `body`, which
/// the caller built from escaped parts.
struct Page {
    var title: String
    var user: String?
    var csrf: String?
    var body: String
    /// A message shown above the content (a refused write, a bad form), escaped here.
    var message: String?
    var messageIsError = true

    func render() -> String {
        var nav = ""
        if let user {
            nav = """
                <nav><a href="/">Campaigns</a> <a href="/edges">Edges</a>
                <span class="who">signed in as \(HTML.escape(user))</span>
                """
            if let csrf {
                nav += """
                    <form method="post" action="/signout" class="inline"><input type="hidden" name="csrf" value="\(HTML.escape(csrf))">\
                    <button type="submit">Sign out</button></form>
                    """
            }
            nav += "</nav>"
        }
        var notice = ""
        if let message {
            notice = "<p class=\"\(messageIsError ? "error" : "notice")\" role=\"alert\">\(HTML.escape(message))</p>"
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(HTML.escape(title)) · launch-ad console</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="stylesheet" href="/assets/console.css"><script src="/assets/console.js" defer></script></head>
            <body><header><h1>\(HTML.escape(title))</h1>\(nav)</header>\(notice)
            <main>\(body)</main></body></html>
            """
    }
}
