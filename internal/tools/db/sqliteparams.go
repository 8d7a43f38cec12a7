package db

import (
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// sqliteParamCount is how many parameters SQLite binds for query, as its
// own tokenizer numbers them: ? takes the next number after the largest
// so far, ?N is N, and each distinct :name, @name or $name takes the next
// number; nothing inside a string, a quoted name or a comment counts.
// named reports whether any parameter has a name. (The driver's NumInput
// says it does not know, so database/sql checks nothing.)
func sqliteParamCount(query string) (count int, named bool) {
	names := map[string]bool{}
	for i := 0; i < len(query); i++ {
		switch c := query[i]; c {
		case '\'', '"', '`':
			if end := strings.IndexByte(query[i+1:], c); end >= 0 {
				i += end + 1 // a doubled quote is two strings next to each other
			} else {
				return count, named
			}
		case '[':
			if end := strings.IndexByte(query[i+1:], ']'); end >= 0 {
				i += end + 1
			}
		case '-':
			if strings.HasPrefix(query[i:], "--") {
				if end := strings.IndexByte(query[i:], '\n'); end >= 0 {
					i += end
				} else {
					return count, named
				}
			}
		case '/':
			if strings.HasPrefix(query[i:], "/*") {
				if end := strings.Index(query[i+2:], "*/"); end >= 0 {
					i += end + 3
				} else {
					return count, named
				}
			}
		case '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(query[i+1 : j]); err == nil {
				count = max(count, n)
			} else {
				count++
			}
			i = j - 1
		case ':', '@', '$':
			j := i + 1
			for j < len(query) && (isIdentByte(query[j]) || query[j] == ':' && c == '$') {
				j++
			}
			if j > i+1 && !(c == ':' && i > 0 && query[i-1] == ':') {
				named = true
				if name := query[i:j]; !names[name] {
					names[name] = true
					count++
				}
			}
			i = j - 1
		}
	}
	return count, named
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// sqliteExtraParams is INVALID_ARGS when params gives more values than
// the statement has parameters (SQLite would ignore the rest; PostgreSQL
// refuses them, and so do we), or nil.
func sqliteExtraParams(query string, given int) error {
	want, named := sqliteParamCount(query)
	if named || given <= want {
		return nil
	}
	return tool.Errorf(tool.CodeInvalidArgs, "argument \"params\": the statement has %d parameter(s) and params gives %d value(s); give one value per parameter (? or ?1, ?2 ... in the statement)", want, given)
}
