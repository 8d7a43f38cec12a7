package jsondiff

import (
	"cmp"
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an exact JSON number: (-1)^neg × digits × 10^exp, with digits
// free of leading and trailing zeros. Zero has empty digits. Comparing
// Decimals is exact whatever the size of the numbers, unlike float64, so
// 9007199254740993 and 9007199254740992 are different numbers.
type Decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp bounds the exponents Decimal keeps; larger ones saturate. No JSON
// number anyone means has an exponent near it.
const maxExp = 1 << 50

// ParseDecimal parses s written as a JSON number (-?int[.frac][e±exp]). It
// reports false for anything else, including hexadecimal, leading "+", or
// surrounding spaces.
func ParseDecimal(s string) (Decimal, bool) {
	i, n := 0, len(s)
	neg := false
	if i < n && s[i] == '-' {
		neg = true
		i++
	}
	start := i
	for i < n && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') {
		return Decimal{}, false
	}
	frac := ""
	if i < n && s[i] == '.' {
		i++
		start = i
		for i < n && isDigit(s[i]) {
			i++
		}
		frac = s[start:i]
		if frac == "" {
			return Decimal{}, false
		}
	}
	var exp int64
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < n && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		start = i
		for i < n && isDigit(s[i]) {
			if exp < maxExp {
				exp = exp*10 + int64(s[i]-'0')
			}
			i++
		}
		if i == start {
			return Decimal{}, false
		}
		if expNeg {
			exp = -exp
		}
	}
	if i != n {
		return Decimal{}, false
	}
	return normalize(neg, intPart+frac, exp-int64(len(frac))), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func normalize(neg bool, digits string, exp int64) Decimal {
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return Decimal{}
	}
	t := strings.TrimRight(digits, "0")
	return Decimal{neg: neg, digits: t, exp: exp + int64(len(digits)-len(t))}
}

// NumberOf returns the Decimal of a decoded JSON number (json.Number or
// float64, as encoding/json produces) and whether v is one.
func NumberOf(v any) (Decimal, bool) {
	switch n := v.(type) {
	case json.Number:
		return ParseDecimal(string(n))
	case float64:
		return ParseDecimal(strconv.FormatFloat(n, 'g', -1, 64))
	case int:
		return ParseDecimal(strconv.Itoa(n))
	case int64:
		return ParseDecimal(strconv.FormatInt(n, 10))
	}
	return Decimal{}, false
}

// Sign returns -1, 0 or +1.
func (d Decimal) Sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// IsInteger reports whether d has no fractional part.
func (d Decimal) IsInteger() bool { return d.exp >= 0 }

// Cmp compares d and e and returns -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int {
	sd, se := d.Sign(), e.Sign()
	if sd != se || sd == 0 {
		return cmp.Compare(sd, se)
	}
	// Same sign, both non-zero: compare magnitudes, first by the position
	// of the leading digit, then digit by digit (no trailing zeros, so a
	// digit string that is a prefix of the other is the smaller).
	m := cmp.Compare(int64(len(d.digits))+d.exp, int64(len(e.digits))+e.exp)
	if m == 0 {
		m = strings.Compare(d.digits, e.digits)
	}
	return m * sd
}

// maxShift bounds the digits Add will materialise when aligning exponents.
const maxShift = 4096

// Add returns d + e exactly, or false when the exponents are too far apart
// to add exactly at reasonable cost (such as 1e9999 + 1e-9999).
func (d Decimal) Add(e Decimal) (Decimal, bool) {
	switch {
	case d.Sign() == 0:
		return e, true
	case e.Sign() == 0:
		return d, true
	}
	lo := min(d.exp, e.exp)
	if d.exp-lo > maxShift || e.exp-lo > maxShift {
		return Decimal{}, false
	}
	x, y := d.bigInt(d.exp-lo), e.bigInt(e.exp-lo)
	z := x.Add(x, y)
	s := z.String()
	neg := strings.HasPrefix(s, "-")
	return normalize(neg, strings.TrimPrefix(s, "-"), lo), true
}

func (d Decimal) bigInt(shift int64) *big.Int {
	z, _ := new(big.Int).SetString(d.digits+strings.Repeat("0", int(shift)), 10)
	if d.neg {
		z.Neg(z)
	}
	return z
}

// Float64 returns the nearest float64 (±Inf when out of range).
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(d.String(), 64)
	return f
}

// String writes d as a JSON number: plainly, as JavaScript does, when it
// has at most 21 integer digits and fewer than 7 leading fractional zeros,
// in exponent notation otherwise.
func (d Decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	n := int64(len(d.digits))
	order := n + d.exp // digits before the decimal point
	switch {
	case order > 21 || order < -5:
		b.WriteString(d.digits[:1])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(d.digits[1:])
		}
		b.WriteByte('e')
		b.WriteString(strconv.FormatInt(order-1, 10))
	case d.exp >= 0:
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", int(d.exp)))
	case order > 0:
		b.WriteString(d.digits[:order])
		b.WriteByte('.')
		b.WriteString(d.digits[order:])
	default:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-order)))
		b.WriteString(d.digits)
	}
	return b.String()
}

// Number returns d as a json.Number, which encoding/json writes verbatim.
func (d Decimal) Number() json.Number { return json.Number(d.String()) }
