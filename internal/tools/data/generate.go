package data

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// genOpts are the per-call options of the value generators.
type genOpts struct {
	loc      *locale
	min, max float64
	length   int
}

// generator makes one value.
type generator func(r *rand.Rand, o *genOpts) any

// generators are the value types of data_generate, by name.
var generators = map[string]generator{
	"name":       func(r *rand.Rand, o *genOpts) any { return pick(r, o.loc.first) + " " + pick(r, o.loc.last) },
	"firstName":  func(r *rand.Rand, o *genOpts) any { return pick(r, o.loc.first) },
	"lastName":   func(r *rand.Rand, o *genOpts) any { return pick(r, o.loc.last) },
	"email":      func(r *rand.Rand, o *genOpts) any { return email(r, pick(r, o.loc.first), pick(r, o.loc.last)) },
	"uuid":       func(r *rand.Rand, _ *genOpts) any { return uuid4(r) },
	"phone":      func(r *rand.Rand, o *genOpts) any { return o.loc.phone(r) },
	"address":    func(r *rand.Rand, o *genOpts) any { return address(r, o.loc) },
	"city":       func(r *rand.Rand, o *genOpts) any { return pick(r, o.loc.cities) },
	"country":    func(r *rand.Rand, _ *genOpts) any { return pick(r, countries) },
	"zipCode":    func(r *rand.Rand, o *genOpts) any { return o.loc.zip(r) },
	"company":    func(r *rand.Rand, o *genOpts) any { return company(r, o.loc) },
	"url":        func(r *rand.Rand, _ *genOpts) any { return url(r) },
	"ipv4":       func(r *rand.Rand, _ *genOpts) any { return ipv4(r) },
	"ipv6":       func(r *rand.Rand, _ *genOpts) any { return ipv6(r) },
	"date":       func(r *rand.Rand, _ *genOpts) any { return instant(r, 2000, 2030).Format(time.DateOnly) },
	"datetime":   func(r *rand.Rand, _ *genOpts) any { return instant(r, 2000, 2030).Format(time.RFC3339) },
	"integer":    func(r *rand.Rand, o *genOpts) any { return integer(r, o.min, o.max) },
	"float":      func(r *rand.Rand, o *genOpts) any { return float(r, o.min, o.max) },
	"boolean":    func(r *rand.Rand, _ *genOpts) any { return r.IntN(2) == 1 },
	"password":   func(r *rand.Rand, o *genOpts) any { return password(r, o.length) },
	"username":   func(r *rand.Rand, o *genOpts) any { return username(r, pick(r, o.loc.first), pick(r, o.loc.last)) },
	"sentence":   func(r *rand.Rand, _ *genOpts) any { return sentence(r) },
	"paragraph":  func(r *rand.Rand, _ *genOpts) any { return paragraph(r) },
	"color":      func(r *rand.Rand, _ *genOpts) any { return fmt.Sprintf("#%06x", r.IntN(1<<24)) },
	"creditCard": func(r *rand.Rand, _ *genOpts) any { return creditCard(r) },
	"user":       func(r *rand.Rand, o *genOpts) any { return user(r, o.loc) },
}

// typeNames lists the generator names in the order they are documented.
var typeNames = []string{"name", "firstName", "lastName", "email", "uuid", "phone", "address", "city", "country",
	"zipCode", "company", "url", "ipv4", "ipv6", "date", "datetime", "integer", "float", "boolean", "password",
	"username", "sentence", "paragraph", "color", "creditCard", "user"}

const (
	defaultMin       = 0
	defaultMax       = 1000
	defaultPassword  = 16
	maxIntegerBounds = 1<<53 - 1
)

func dataGenerate() tool.Tool {
	type args struct {
		Type   string   `json:"type"`
		Count  int      `json:"count"`
		Seed   *int64   `json:"seed"`
		Locale string   `json:"locale"`
		Min    *float64 `json:"min"`
		Max    *float64 `json:"max"`
		Length int      `json:"length"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "data_generate",
			Description: "Generate realistic fake test data of one type, reproducibly. Emails, phones and IPs use reserved " +
				"ranges, creditCard gateway test numbers. Returns {type, count, seed, locale, values}.",
			Phrases:  []string{"fake names and emails", "faker", "mock users", "dummy data", "seed data", "random email address", "test credit card numbers", "lorem ipsum", "test data for a form"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("type", "Kind of value").EnumStrings(typeNames...).Required(),
				countProp(),
				seedProp(),
				schema.String("locale", "Of names, addresses, zip codes, phones, companies").
					EnumStrings(localeNames...).Default(defaultLocale),
				schema.Number("min", "Inclusive lower bound of integer and float").
					Min(-maxIntegerBounds).Max(maxIntegerBounds).Default(defaultMin),
				schema.Number("max", "Inclusive upper bound of integer and float").
					Min(-maxIntegerBounds).Max(maxIntegerBounds).Default(defaultMax),
				schema.Integer("length", "Password length; has upper, lower, digit and symbol").Min(4).Max(1024).Default(defaultPassword),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			gen, ok := generators[in.Type]
			if !ok {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"type\": unknown type %q; expected one of %s",
					in.Type, strings.Join(typeNames, ", "))
			}
			if in.Count == 0 {
				in.Count = 1
			}
			if in.Count < 1 || in.Count > maxCount {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"count\": expected 1 to %d, got %d", maxCount, in.Count)
			}
			if in.Locale == "" {
				in.Locale = defaultLocale
			}
			loc, ok := locales[in.Locale]
			if !ok {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"locale\": unknown locale %q; expected one of %s",
					in.Locale, strings.Join(localeNames, ", "))
			}
			o := &genOpts{loc: loc, min: defaultMin, max: defaultMax, length: in.Length}
			if in.Min != nil {
				o.min = *in.Min
			}
			if in.Max != nil {
				o.max = *in.Max
			}
			if o.min > o.max {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"min\": %v is greater than max %v; min must be <= max", o.min, o.max)
			}
			if in.Type == "integer" && math.Ceil(o.min) > math.Floor(o.max) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "arguments \"min\" and \"max\": no integer lies between %v and %v", o.min, o.max)
			}
			if o.length == 0 {
				o.length = defaultPassword
			}
			if o.length < 4 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"length\": expected at least 4 (one character of each class), got %d", o.length)
			}
			if in.Seed != nil && (*in.Seed < 0 || *in.Seed > maxSeed) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"seed\": expected 0 to %d, got %d", int64(maxSeed), *in.Seed)
			}
			r, seed := newRand(in.Seed)
			values := make([]any, in.Count)
			for i := range values {
				if i%64 == 0 && ctx.Err() != nil {
					return nil, tool.Errorf(tool.CodeCancelled, "cancelled after %d values", i)
				}
				values[i] = gen(r, o)
			}
			return map[string]any{"type": in.Type, "count": in.Count, "seed": seed, "locale": in.Locale, "values": values}, nil
		}),
	}
}

func email(r *rand.Rand, first, last string) string {
	local := slug(first) + pick(r, []string{".", "_", ""}) + slug(last)
	if r.IntN(2) == 0 {
		local += fmt.Sprint(r.IntN(100))
	}
	return local + "@" + pick(r, emailDomains)
}

func username(r *rand.Rand, first, last string) string {
	u := slug(first) + pick(r, []string{".", "_", ""}) + slug(last)
	if r.IntN(2) == 0 {
		u = slug(first)[:1] + slug(last)
	}
	return u + fmt.Sprint(r.IntN(1000))
}

// uuid4 returns a random version 4, variant 1 UUID.
func uuid4(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func address(r *rand.Rand, loc *locale) map[string]any {
	return map[string]any{
		"street":  loc.street(r, pick(r, loc.streets)),
		"city":    pick(r, loc.cities),
		"zipCode": loc.zip(r),
		"country": loc.country,
	}
}

func company(r *rand.Rand, loc *locale) string {
	if r.IntN(3) == 0 {
		return pick(r, loc.last) + " & " + pick(r, loc.last)
	}
	return pick(r, loc.last) + " " + pick(r, loc.companySuffixes)
}

func url(r *rand.Rand) string {
	u := "https://" + pick(r, []string{"www.", "app.", "api.", ""}) + pick(r, urlDomains) + "/" + pick(r, lorem)
	if r.IntN(2) == 0 {
		u += "/" + pick(r, lorem) + "-" + pick(r, lorem)
	}
	if r.IntN(3) == 0 {
		u += fmt.Sprintf("?id=%d", r.IntN(10000))
	}
	return u
}

// ipv4 returns an address in one of the RFC 5737 documentation networks.
func ipv4(r *rand.Rand) string {
	return pick(r, []string{"192.0.2.", "198.51.100.", "203.0.113."}) + fmt.Sprint(between(r, 1, 254))
}

// ipv6 returns an address in the RFC 3849 documentation prefix.
func ipv6(r *rand.Rand) string {
	g := make([]string, 6)
	for i := range g {
		g[i] = fmt.Sprintf("%x", r.IntN(1<<16))
	}
	return "2001:db8:" + strings.Join(g, ":")
}

// instant returns a whole second in [fromYear-01-01, toYear-12-31], UTC.
func instant(r *rand.Rand, fromYear, toYear int) time.Time {
	lo := time.Date(fromYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(toYear+1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	return time.Unix(lo+r.Int64N(hi-lo), 0).UTC()
}

func integer(r *rand.Rand, lo, hi float64) int64 {
	a, b := int64(math.Ceil(lo)), int64(math.Floor(hi))
	return a + r.Int64N(b-a+1)
}

// float returns a number in [lo, hi] with at most two decimals when the range
// allows it.
func float(r *rand.Rand, lo, hi float64) float64 {
	v := lo + r.Float64()*(hi-lo)
	if rv := stats.Round(v, 2); rv >= lo && rv <= hi {
		return rv
	}
	return v
}

func password(r *rand.Rand, n int) string {
	classes := []string{"ABCDEFGHJKLMNPQRSTUVWXYZ", "abcdefghijkmnopqrstuvwxyz", "23456789", "!@#$%^&*-_=+?"}
	all := strings.Join(classes, "")
	b := make([]byte, n)
	for i := range b {
		set := all
		if i < len(classes) {
			set = classes[i]
		}
		b[i] = set[r.IntN(len(set))]
	}
	r.Shuffle(n, func(i, j int) { b[i], b[j] = b[j], b[i] })
	return string(b)
}

func words(r *rand.Rand, n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = pick(r, lorem)
	}
	return w
}

func sentence(r *rand.Rand) string {
	s := strings.Join(words(r, between(r, 6, 12)), " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func paragraph(r *rand.Rand) string {
	s := make([]string, between(r, 3, 6))
	for i := range s {
		s[i] = sentence(r)
	}
	return strings.Join(s, " ")
}

func creditCard(r *rand.Rand) map[string]any {
	c := pick(r, testCards)
	cvv := fmt.Sprintf("%03d", r.IntN(1000))
	if c.brand == "amex" {
		cvv = fmt.Sprintf("%04d", r.IntN(10000))
	}
	return map[string]any{
		"number": c.number,
		"brand":  c.brand,
		// Test gateways accept any future expiry; 2030 to 2039 stays future
		// for a while and keeps the output independent of today's date.
		"expiry": fmt.Sprintf("%02d/%02d", between(r, 1, 12), between(r, 30, 39)),
		"cvv":    cvv,
	}
}

func user(r *rand.Rand, loc *locale) map[string]any {
	first, last := pick(r, loc.first), pick(r, loc.last)
	return map[string]any{
		"id":        uuid4(r),
		"firstName": first,
		"lastName":  last,
		"username":  username(r, first, last),
		"email":     email(r, first, last),
		"phone":     loc.phone(r),
		"birthDate": instant(r, 1950, 2005).Format(time.DateOnly),
		"address":   address(r, loc),
	}
}
