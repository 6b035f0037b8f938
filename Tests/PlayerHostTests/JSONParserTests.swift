import Testing
import PlayerHost

/// Parses `bytes`, returning the error (or nil if it parsed) so rejection tests can assert on it.
private func parseError(_ bytes: [UInt8], maxDepth: Int = 256) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

private func parseError(_ text: String, maxDepth: Int = 256) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

@Suite struct JSONParserTests {
    // MARK: Accepted documents

    @Test func scalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-12") == .int(-12))
        #expect(try JSONParser.parse("1.5") == .double(1.5))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("\"\"") == .string(""))
    }

    @Test func surroundingWhitespaceIsAllowed() throws {
        #expect(try JSONParser.parse(" \t\r\n[ 1 , { \"a\" : null } ]\n\r\t ") == [1, ["a": nil]])
    }

    @Test func pingRequest() throws {
        let value = try JSONParser.parse(#"{"jsonrpc":"2.0","method":"host.ping","id":1}"#)
        #expect(value == .object(["jsonrpc": "2.0", "method": "host.ping", "id": .int(1)]))
    }

    @Test func nestedStructures() throws {
        let value = try JSONParser.parse(#"{"a":[1,[2,[]],{}],"b":{"c":{"d":"e"}},"f":[true,false,null]}"#)
        #expect(value == ["a": [1, [2, []], [:]], "b": ["c": ["d": "e"]], "f": [true, false, nil]])
    }

    @Test func duplicateKeysLastWins() throws {
        let value = try JSONParser.parse(#"{"id":1,"x":0,"id":2}"#)
        #expect(value == ["id": 2, "x": 0])
    }

    /// Dictionary keys compare by canonical equivalence, so these two spellings are one key.
    @Test func canonicallyEquivalentKeysAreDuplicates() throws {
        let value = try JSONParser.parse(#"{"\u00e9":1,"e\u0301":2}"#)
        #expect(value.objectValue?.count == 1)
        #expect(value["\u{E9}"] == 2)
    }

    @Test func allOverloadsAgree() throws {
        let text = #"{"k":[1,2.5,"\u00e9"]}"#
        let bytes = Array(text.utf8)
        let viaRaw = try bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSON in try JSONParser.parse(raw) }
        }.get()
        #expect(try JSONParser.parse(text) == viaRaw)
        #expect(try JSONParser.parse(bytes) == viaRaw)
        #expect(viaRaw == ["k": [1, 2.5, "é"]])
    }

    // MARK: Numbers

    @Test func int64BoundariesStayInt() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONParser.parse("[10,-10]") == [10, -10])
    }

    @Test func integersBeyondInt64BecomeDouble() throws {
        #expect(try JSONParser.parse("9223372036854775808") == .double(9223372036854775808.0))
        #expect(try JSONParser.parse("-9223372036854775809") == .double(-9223372036854775809.0))
        #expect(try JSONParser.parse("18446744073709551616") == .double(18446744073709551616.0))
        #expect(try JSONParser.parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
    }

    @Test func negativeZeroKeepsItsSign() throws {
        for text in ["-0", "-0.0", "-0e5"] {
            let value = try JSONParser.parse(text)
            guard case .double(let d) = value else {
                Issue.record("\(text) parsed as \(value)")
                continue
            }
            #expect(d == 0 && d.sign == .minus, "\(text)")
        }
        #expect(try JSONParser.parse("0") == .int(0))
        guard case .double(let positive) = try JSONParser.parse("0.0") else { Issue.record("0.0"); return }
        #expect(positive.sign == .plus)
    }

    @Test(arguments: [
        ("1e2", 100.0), ("1E2", 100.0), ("1e+2", 100.0), ("1E-2", 0.01), ("-2.5e-3", -0.0025),
        ("0e0", 0.0), ("10.0", 10.0), ("1e0", 1.0), ("0.1", 0.1), ("3.141592653589793", 3.141592653589793),
        ("1e22", 1e22), ("1e23", 1e23), ("1e-400", 0.0), ("1e-7", 1e-7), ("0.000001", 1e-6),
    ])
    func fractionsAndExponentsBecomeDouble(text: String, expected: Double) throws {
        #expect(try JSONParser.parse(text) == .double(expected))
    }

    /// Hard cases for decimal-to-binary conversion; the result must be the correctly rounded one.
    @Test(arguments: [
        ("2.2250738585072011e-308", 0x000F_FFFF_FFFF_FFFF as UInt64),  // largest subnormal
        ("2.2250738585072014e-308", 0x0010_0000_0000_0000),  // smallest normal
        ("4.9e-324", 0x0000_0000_0000_0001),  // smallest subnormal
        ("1.7976931348623157e308", 0x7FEF_FFFF_FFFF_FFFF),  // greatest finite
        ("9007199254740993e0", 0x4340_0000_0000_0000),  // 2^53 + 1 ties to even: 2^53
        ("9007199254740993.0", 0x4340_0000_0000_0000),
        ("9007199254740995.0", 0x4340_0000_0000_0002),  // ties to even upward
        ("1.00000000000000011102230246251565404236316680908203125", 0x3FF0_0000_0000_0000),  // exact halfway
        ("1.00000000000000011102230246251565404236316680908203126", 0x3FF0_0000_0000_0001),  // just above
        ("0.30000000000000004", 0x3FD3_3333_3333_3334),
        ("123456789012345678e-30", 0x3D41_5FFF_E541_DEC4),
    ])
    func doublesAreCorrectlyRounded(text: String, bits: UInt64) throws {
        let value = try JSONParser.parse(text)
        guard case .double(let d) = value else {
            Issue.record("\(text) parsed as \(value)")
            return
        }
        #expect(d.bitPattern == bits, "\(text) -> \(d)")
    }

    /// The fast path and the slow path must agree with the standard library on ordinary inputs.
    @Test func doublesMatchStandardLibrary() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            let digits = String(generator.next() % 10_000_000_000_000_000)
            let point = Int(generator.next() % UInt64(digits.count))
            let exponent = Int(generator.next() % 60) - 30
            let text = "\(digits.prefix(point).isEmpty ? "0" : String(digits.prefix(point))).\(digits.dropFirst(point))5e\(exponent)"
            guard case .double(let d) = try JSONParser.parse(text) else {
                Issue.record("\(text) not a double")
                continue
            }
            #expect(d == Double(text)!, "\(text)")
        }
    }

    @Test func hugeNumbersAreRejectedNotInfinity() {
        #expect(parseError("1e400") == JSONParseError(message: "number out of range", offset: 0))
        #expect(parseError("[-1.8e308]")?.offset == 1)
    }

    // MARK: Strings

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u00e9\u00E9""#, "éé"),
        (#""\u0000""#, "\u{0}"),
        (#""\u20AC""#, "€"),
        (#""\ud83d\ude00""#, "😀"),
        (#""\uD834\uDD1E""#, "𝄞"),
        (#""a\nb\u0041c""#, "a\nbAc"),
        (#""prefix that is longer than eight bytes \t and suffix that is long too""#, "prefix that is longer than eight bytes \t and suffix that is long too"),
    ])
    func escapesDecode(json: String, expected: String) throws {
        #expect(try JSONParser.parse(json) == .string(expected))
    }

    @Test func surrogatePairBecomesOneScalar() throws {
        let value = try JSONParser.parse(#""\ud83d\ude00""#)
        #expect(value.stringValue?.unicodeScalars.map(\.value) == [0x1F600])
    }

    @Test func rawUTF8IsAccepted() throws {
        let text = "\"é中😀 plain ASCII long enough to cross words ü\""
        #expect(try JSONParser.parse(text) == .string("é中😀 plain ASCII long enough to cross words ü"))
        // Boundary code points of each UTF-8 length.
        let edges: [UInt8] = [0x22, 0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80,
                              0xEF, 0xBF, 0xBF, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]
        let scalars = try JSONParser.parse(edges).stringValue?.unicodeScalars.map(\.value)
        #expect(scalars == [0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF])
    }

    // MARK: Rejections

    /// Each malformed document and the byte offset the error must point at.
    @Test(arguments: [
        ("", 0), ("   ", 3), ("nul", 3), ("nulL", 3), ("True", 0), ("tru", 3),
        ("1 2", 2), ("{} x", 3), ("[1]]", 3), ("\"a\"\"", 3), ("null,", 4),
        ("01", 0), ("-01", 0), ("00", 0), ("+1", 0), (".5", 0), ("1.", 2), ("1.e5", 2), ("-", 1), ("-a", 1),
        ("1e", 2), ("1e+", 3), ("1E-x", 3), ("0x10", 1), ("1.5.2", 3),
        ("NaN", 0), ("Infinity", 0), ("-Infinity", 1), ("nan", 1),
        ("[1,]", 3), ("[,1]", 1), ("[1 2]", 3), ("[", 1), ("[1", 2), ("]", 0),
        ("{\"a\":1,}", 7), ("{\"a\" 1}", 5), ("{a:1}", 1), ("{\"a\":}", 5), ("{\"a\":1", 6), ("{1:2}", 1), ("{", 1),
        ("\"abc", 4), ("\"\\x\"", 1), ("\"\\u12\"", 1), ("\"\\u12G4\"", 1), ("\"\\", 2), ("\"\\U0041\"", 1),
        ("\"\\'\"", 1), ("'a'", 0),
        ("\"\\ud800\"", 1), ("\"\\ud800x\"", 1), ("\"\\ud800\\n\"", 1), ("\"\\ud800\\u0041\"", 1),
        ("\"\\udc00\"", 1), ("\"\\ude00\\ud83d\"", 1), ("\"\\ud800\\ud800\"", 1), ("\"ok\\ud83d", 3),
        ("\u{FEFF}1", 0), ("\u{0C}1", 0), ("\u{A0}1", 0),
    ])
    func malformedDocumentIsRejected(text: String, offset: Int) {
        let error = parseError(text)
        #expect(error != nil, "accepted \(text.debugDescription)")
        #expect(error?.offset == offset, "\(text.debugDescription): \(error?.description ?? "")")
    }

    @Test(arguments: Array(0x00...0x1F) as [UInt8])
    func rawControlCharacterInStringIsRejected(byte: UInt8) {
        let error = parseError([0x22, 0x61, byte, 0x22])
        #expect(error?.offset == 2)
        #expect(error?.message.contains("control character") == true)
        // Same byte as a word-aligned member of a longer string, to exercise the 8-byte scan.
        #expect(parseError([0x22] + Array(repeating: 0x61, count: 13) + [byte, 0x22])?.offset == 14)
    }

    /// Malformed UTF-8 inside a string, and the offset of the first bad byte.
    @Test(arguments: [
        ([0x80], 1),  // lone continuation byte
        ([0xBF], 1),
        ([0xC0, 0x80], 1),  // overlong NUL
        ([0xC1, 0xBF], 1),  // overlong
        ([0xE0, 0x80, 0x80], 1),  // overlong 3-byte
        ([0xE0, 0x9F, 0xBF], 1),  // overlong U+07FF
        ([0xF0, 0x80, 0x80, 0x80], 1),  // overlong 4-byte
        ([0xF0, 0x8F, 0xBF, 0xBF], 1),  // overlong U+FFFF
        ([0xED, 0xA0, 0x80], 1),  // U+D800 encoded directly
        ([0xED, 0xBF, 0xBF], 1),  // U+DFFF encoded directly
        ([0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], 1),  // CESU-8 surrogate pair
        ([0xF4, 0x90, 0x80, 0x80], 1),  // U+110000
        ([0xF5, 0x80, 0x80, 0x80], 1),
        ([0xF8, 0x88, 0x80, 0x80, 0x80], 1),
        ([0xFE], 1), ([0xFF], 1),
        ([0xC3], 2),  // truncated by the closing quote
        ([0xE2, 0x82], 3),
        ([0xF0, 0x9F, 0x98], 4),
        ([0xC3, 0x41], 2),  // continuation replaced by ASCII
        ([0x61, 0xE2, 0x28, 0xA1], 3),
        ([0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0xC3, 0x28], 10),  // after a clean word
    ] as [([UInt8], Int)])
    func invalidUTF8IsRejected(content: [UInt8], offset: Int) {
        let error = parseError([0x22] + content + [0x22])
        #expect(error?.offset == offset, "\(content): \(error?.description ?? "accepted")")
        #expect(error?.message.contains("UTF-8") == true)
        // Also as an object key, which goes through the same scanner.
        #expect(parseError([0x7B, 0x22] + content + [0x22, 0x3A, 0x31, 0x7D]) != nil)
    }

    @Test func truncatedUTF8AtEndOfInput() {
        #expect(parseError([0x22, 0xE2, 0x82])?.offset == 3)
        #expect(parseError([0x22, 0xF0])?.offset == 2)
    }

    @Test func invalidUTF8OutsideStringsIsRejected() {
        #expect(parseError([0xC3, 0xA9])?.offset == 0)
        #expect(parseError([0x5B, 0x31, 0x5D, 0xFF])?.offset == 3)
    }

    @Test func errorsDescribeTheProblem() {
        #expect(parseError("[1,]") == JSONParseError(message: "unexpected ']', expected a JSON value", offset: 3))
        #expect(parseError("01") == JSONParseError(message: "leading zeros are not allowed", offset: 0))
        #expect(parseError("\"\\ud800\"")?.message == "unpaired high surrogate escape \\uD800")
        #expect(parseError("1 x")?.description == "unexpected 'x' after the JSON value at byte 2")
    }

    // MARK: Depth

    @Test func hundredThousandNestedArraysFailCleanly() {
        let clock = ContinuousClock()
        let start = clock.now
        let error = parseError(Array(repeating: UInt8(ascii: "["), count: 100_000))
        #expect(error?.offset == 256)
        #expect(error?.message.contains("nesting") == true)
        #expect(clock.now - start < .seconds(1))
    }

    @Test func deeplyNestedObjectsFailCleanly() {
        let doc = String(repeating: #"{"a":"#, count: 100_000)
        #expect(parseError(doc)?.offset == 256 * 5)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = 256
        let doc = String(repeating: "[", count: depth) + "7" + String(repeating: "]", count: depth)
        var value = try JSONParser.parse(doc)
        for _ in 0..<depth {
            guard case .array(let inner) = value, inner.count == 1 else {
                Issue.record("unexpected shape")
                return
            }
            value = inner[0]
        }
        #expect(value == 7)
        let tooDeep = "[" + doc + "]"
        #expect(parseError(tooDeep)?.offset == 256)
    }

    @Test func customMaxDepth() throws {
        #expect(try JSONParser.parse("[[{\"a\":1}]]", maxDepth: 3) == [[["a": 1]]])
        #expect(parseError("[[{\"a\":1}]]", maxDepth: 2)?.offset == 2)
        #expect(try JSONParser.parse("5", maxDepth: 0) == 5)
        #expect(parseError("[]", maxDepth: 0)?.offset == 0)
    }
}
