package util

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

var dateUnits = []any{"milliseconds", "seconds", "minutes", "hours", "days", "weeks", "months", "years"}

// fixedUnits are the units that are exact durations.
var fixedUnits = map[string]time.Duration{
	"milliseconds": time.Millisecond, "seconds": time.Second, "minutes": time.Minute, "hours": time.Hour,
}

// namedFormats are the format names date_utils accepts besides Go layouts.
var namedFormats = map[string]string{
	"iso":     isoLayout,
	"rfc3339": time.RFC3339,
	"rfc1123": time.RFC1123,
	"date":    time.DateOnly,
	"time":    time.TimeOnly,
}

// Layouts tried, in order, on a date string: first those carrying an offset,
// then those read in the requested time zone. Fractional seconds are
// accepted after the seconds field even though the layouts do not show them.
var (
	zonedLayouts = []string{
		"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05Z07",
		"2006-01-02T15:04Z07:00", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05 Z07:00",
		time.RFC1123Z, time.RFC1123,
	}
	localLayouts = []string{
		"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", time.DateOnly,
	}
	unixPattern = regexp.MustCompile(`^[-+]?[0-9]+(\.[0-9]+)?$`)
)

// minTime and maxTime bound the instants date_utils works with (years 0000 to 9999).
var (
	minTime = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
)

type dateArgs struct {
	Operation string   `json:"operation"`
	Date      any      `json:"date"`
	Date2     any      `json:"date2"`
	Amount    *float64 `json:"amount"`
	Unit      string   `json:"unit"`
	Format    string   `json:"format"`
	Timezone  string   `json:"timezone"`
}

func dateUtils(now func() time.Time) tool.Tool {
	return tool.Tool{
		Def: tool.Def{
			Name: "date_utils",
			Description: "Date arithmetic and formatting. Dates: ISO 8601 / RFC 3339, YYYY-MM-DD, a local date-time (read in " +
				"timezone) or unix seconds; default now. Results are ISO 8601 in timezone (default UTC). Operations: add/subtract " +
				"(amount, unit; days and weeks are calendar days, months and years clamp to the month end), diff (date2 − date), " +
				"format (format), parse, startOf/endOf (unit; weeks start on Monday), isWeekend, dayOfWeek.",
			Phrases:  []string{"add days to date", "days between dates", "format a date", "date math", "end of month", "convert timezone", "is it a weekend", "date-fns", "moment.js", "add minutes to a timestamp", "expiry from a start and a duration"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("operation", "What to do").Enum("add", "subtract", "diff", "format", "parse", "startOf", "endOf", "isWeekend", "dayOfWeek").Required(),
				schema.String("date", "The date: ISO 8601 / RFC 3339, YYYY-MM-DD, or unix seconds (number or digit string); default now. Required for parse").Types("string", "number"),
				schema.String("date2", "The second date, for diff (same forms as date); the result is date2 minus date").Types("string", "number"),
				schema.Number("amount", "How many units to add or subtract (add, subtract); whole numbers for days, weeks, months and years"),
				schema.String("unit", "Unit for add, subtract, startOf and endOf (required there), and optionally diff").Enum(dateUnits...),
				schema.String("format", "For format (required): a name (iso, rfc3339, rfc1123, date, time, unix, unixMs) or a Go layout such as \"Jan 2, 2006 15:04\". For parse (optional): the layout date is written in"),
				schema.String("timezone", "IANA time zone the results are expressed in and local dates are read in, such as \"America/New_York\"").Default("UTC"),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in dateArgs, _ *tool.Call) (any, error) {
			return runDate(in, now)
		}),
	}
}

func runDate(in dateArgs, now func() time.Time) (any, error) {
	loc, err := loadZone("timezone", in.Timezone)
	if err != nil {
		return nil, err
	}
	need := func(field string, missing bool, what string) error {
		if missing {
			return invalid(field, "is required for operation %q (%s)", in.Operation, what)
		}
		return nil
	}
	var checks []error
	switch in.Operation {
	case "add", "subtract":
		checks = append(checks, need("amount", in.Amount == nil, "a number of units"), need("unit", in.Unit == "", "one of milliseconds, seconds, minutes, hours, days, weeks, months, years"))
	case "diff":
		checks = append(checks, need("date2", in.Date2 == nil, "the date to measure to"))
	case "format":
		checks = append(checks, need("format", in.Format == "", "a name such as \"iso\" or a Go layout such as \"2006-01-02\""))
	case "parse":
		checks = append(checks, need("date", in.Date == nil, "the date string to parse"))
	case "startOf", "endOf":
		checks = append(checks, need("unit", in.Unit == "", "one of milliseconds, seconds, minutes, hours, days, weeks, months, years"))
	case "isWeekend", "dayOfWeek":
	default:
		return nil, invalid("operation", "expected one of add, subtract, diff, format, parse, startOf, endOf, isWeekend, dayOfWeek, got %q", in.Operation)
	}
	for _, err := range checks {
		if err != nil {
			return nil, err
		}
	}
	if in.Unit != "" && !isDateUnit(in.Unit) {
		return nil, invalid("unit", "expected one of milliseconds, seconds, minutes, hours, days, weeks, months, years, got %q", in.Unit)
	}
	layout := ""
	if in.Operation == "parse" {
		layout = in.Format
	}
	t, err := parseDate("date", in.Date, layout, loc, now)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"operation": in.Operation, "date": t.Format(isoLayout), "timezone": loc.String()}
	switch in.Operation {
	case "add", "subtract":
		amount := *in.Amount
		if in.Operation == "subtract" {
			amount = -amount
		}
		r, clamped, err := addUnits(t, amount, in.Unit)
		if err != nil {
			return nil, err
		}
		out["amount"], out["unit"] = *in.Amount, in.Unit
		out["result"], out["unixMs"], out["clamped"] = r.Format(isoLayout), r.UnixMilli(), clamped
	case "diff":
		t2, err := parseDate("date2", in.Date2, "", loc, now)
		if err != nil {
			return nil, err
		}
		out["date2"] = t2.Format(isoLayout)
		for k, v := range diff(t, t2) {
			out[k] = v
		}
		if in.Unit != "" {
			out["unit"], out["value"] = in.Unit, out[in.Unit]
		}
	case "format":
		out["format"], out["result"] = in.Format, formatDate(t, in.Format)
	case "parse":
		if in.Format != "" {
			out["format"] = in.Format
		}
		out["input"] = in.Date
		for k, v := range breakdown(t) {
			out[k] = v
		}
	case "startOf", "endOf":
		r := startOf(t, in.Unit)
		if in.Operation == "endOf" {
			r = nextStart(r, in.Unit).Add(-time.Millisecond)
		}
		if r.Before(minTime) || !r.Before(maxTime) {
			return nil, invalid("date", "the %s of the %s is outside the years 0000-9999", in.Operation, strings.TrimSuffix(in.Unit, "s"))
		}
		out["unit"], out["result"], out["unixMs"] = in.Unit, r.Format(isoLayout), r.UnixMilli()
	case "isWeekend":
		wd := t.Weekday()
		out["isWeekend"], out["dayOfWeek"] = wd == time.Saturday || wd == time.Sunday, wd.String()
	case "dayOfWeek":
		out["dayOfWeek"], out["isoWeekday"] = t.Weekday().String(), isoWeekday(t)
	}
	return out, nil
}

func isDateUnit(u string) bool {
	for _, v := range dateUnits {
		if v == u {
			return true
		}
	}
	return false
}

func isoWeekday(t time.Time) int { return (int(t.Weekday())+6)%7 + 1 }

// parseDate reads a date argument: nil is now; a number is unix seconds; a
// string is tried against the accepted forms, or read with layout if given.
func parseDate(field string, v any, layout string, loc *time.Location, now func() time.Time) (time.Time, error) {
	var t time.Time
	switch x := v.(type) {
	case nil:
		t = now()
	case float64:
		u, err := fromUnix(field, x)
		if err != nil {
			return t, err
		}
		t = u
	case string:
		s := strings.TrimSpace(x)
		var ok bool
		var err error
		if layout != "" {
			t, ok, err = parseWithLayout(field, s, layout, loc)
		} else {
			t, ok, err = parseAuto(field, s, loc)
		}
		if err != nil {
			return t, err
		}
		if !ok {
			if layout != "" {
				return t, invalid(field, "%q does not match the format %q", x, layout)
			}
			why := ""
			if len(s) >= 10 {
				if _, err := time.Parse(time.DateOnly, s[:10]); err != nil && !strings.Contains(err.Error(), "cannot parse") {
					why = " (" + err.Error() + ")"
				}
			}
			return t, invalid(field, "cannot parse %q as a date%s; use ISO 8601 / RFC 3339 (\"2024-01-15T10:30:00Z\"), \"YYYY-MM-DD\" or unix seconds", x, why)
		}
	default:
		return t, invalid(field, "expected a date string or unix seconds, got %v", x)
	}
	if t.Before(minTime) || !t.Before(maxTime) {
		return t, invalid(field, "%v is outside the years 0000-9999", v)
	}
	return t.In(loc), nil
}

func fromUnix(field string, f float64) (time.Time, error) {
	if math.IsNaN(f) || f < float64(minTime.Unix()) || f >= float64(maxTime.Unix()) {
		return time.Time{}, invalid(field, "unix seconds %v are outside the years 0000-9999", f)
	}
	sec := math.Floor(f)
	return time.Unix(int64(sec), int64(math.Round((f-sec)*1e9))), nil
}

// parseAuto reads unix seconds or any of the accepted date forms.
func parseAuto(field, s string, loc *time.Location) (time.Time, bool, error) {
	if unixPattern.MatchString(s) {
		f, _ := strconv.ParseFloat(s, 64)
		t, err := fromUnix(field, f)
		return t, err == nil, err
	}
	for _, l := range zonedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true, nil
		}
	}
	for _, l := range localLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, true, nil
		}
	}
	return time.Time{}, false, nil
}

// parseWithLayout reads s written in a named format or a Go layout.
func parseWithLayout(field, s, layout string, loc *time.Location) (time.Time, bool, error) {
	switch strings.ToLower(layout) {
	case "iso", "rfc3339":
		if unixPattern.MatchString(s) {
			return time.Time{}, false, nil
		}
		return parseAuto(field, s, loc)
	case "unix":
		if !unixPattern.MatchString(s) {
			return time.Time{}, false, nil
		}
		return parseAuto(field, s, loc)
	case "unixms":
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, false, nil
		}
		if ms < minTime.UnixMilli() || ms >= maxTime.UnixMilli() {
			return time.Time{}, false, invalid(field, "unix milliseconds %d are outside the years 0000-9999", ms)
		}
		return time.UnixMilli(ms), true, nil
	}
	if l, ok := namedFormats[strings.ToLower(layout)]; ok {
		layout = l
	}
	t, err := time.ParseInLocation(layout, s, loc)
	return t, err == nil, nil
}

func formatDate(t time.Time, format string) string {
	switch strings.ToLower(format) {
	case "unix":
		return strconv.FormatInt(t.Unix(), 10)
	case "unixms":
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	if l, ok := namedFormats[strings.ToLower(format)]; ok {
		return t.Format(l)
	}
	return t.Format(format)
}

// addUnits adds amount units to t; clamped reports a month-end clamp.
func addUnits(t time.Time, amount float64, unit string) (r time.Time, clamped bool, err error) {
	if d, ok := fixedUnits[unit]; ok {
		ns := amount * float64(d)
		if math.Abs(ns) > float64(maxTime.Sub(minTime)) {
			return t, false, invalid("amount", "%v %s is too large; the result must stay within the years 0000-9999", amount, unit)
		}
		r = t.Add(time.Duration(math.Round(ns)))
	} else {
		if amount != math.Trunc(amount) {
			return t, false, invalid("amount", "must be a whole number when unit is %q, got %v; use a smaller unit (such as hours) for fractions", unit, amount)
		}
		if math.Abs(amount) > 1e7 {
			return t, false, invalid("amount", "%v %s is too large; the result must stay within the years 0000-9999", amount, unit)
		}
		n := int(amount)
		switch unit {
		case "days":
			r = t.AddDate(0, 0, n)
		case "weeks":
			r = t.AddDate(0, 0, 7*n)
		case "months":
			r, clamped = addMonths(t, n)
		case "years":
			r, clamped = addMonths(t, 12*n)
		}
	}
	if r.Before(minTime) || !r.Before(maxTime) {
		return t, false, invalid("amount", "%v %s takes the date outside the years 0000-9999", amount, unit)
	}
	return r, clamped, nil
}

// addMonths adds n calendar months, clamping the day to the target month's
// last day; clamped reports whether it did.
func addMonths(t time.Time, n int) (time.Time, bool) {
	y, m, d := t.Date()
	total := int(m) - 1 + n
	ny, nm := y+floorDiv(total, 12), time.Month(floorMod(total, 12)+1)
	last := daysIn(ny, nm)
	clamped := d > last
	if clamped {
		d = last
	}
	return time.Date(ny, nm, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location()), clamped
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// diff measures b − a.
func diff(a, b time.Time) map[string]any {
	ms := float64(b.Unix()-a.Unix())*1000 + float64(b.Nanosecond()-a.Nanosecond())/1e6
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	calDays := int(time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC).Sub(time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC)).Hours() / 24)
	months := (by-ay)*12 + int(bm) - int(am)
	if c, _ := addMonths(a, months); !b.Before(a) && months > 0 && c.After(b) {
		months--
	} else if b.Before(a) && months < 0 && c.Before(b) {
		months++
	}
	return map[string]any{
		"milliseconds": ms,
		"seconds":      ms / 1e3,
		"minutes":      ms / 6e4,
		"hours":        ms / 3.6e6,
		"days":         ms / 8.64e7,
		"weeks":        ms / 6.048e8,
		"calendarDays": calDays,
		"months":       months,
		"years":        months / 12,
	}
}

// startOf returns the first instant of the unit containing t, in t's zone.
// Sub-day units subtract wall-clock fields, which stays correct across DST.
func startOf(t time.Time, unit string) time.Time {
	ns := time.Duration(t.Nanosecond())
	sec := time.Duration(t.Second()) * time.Second
	mins := time.Duration(t.Minute()) * time.Minute
	y, m, d := t.Date()
	loc := t.Location()
	switch unit {
	case "milliseconds":
		return t.Add(-(ns % time.Millisecond))
	case "seconds":
		return t.Add(-ns)
	case "minutes":
		return t.Add(-(sec + ns))
	case "hours":
		return t.Add(-(mins + sec + ns))
	case "days":
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	case "weeks":
		return time.Date(y, m, d-isoWeekday(t)+1, 0, 0, 0, 0, loc)
	case "months":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	default: // years
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	}
}

// nextStart returns the start of the unit after the one starting at s.
func nextStart(s time.Time, unit string) time.Time {
	if d, ok := fixedUnits[unit]; ok {
		return s.Add(d)
	}
	y, m, d := s.Date()
	loc := s.Location()
	switch unit {
	case "days":
		return time.Date(y, m, d+1, 0, 0, 0, 0, loc)
	case "weeks":
		return time.Date(y, m, d+7, 0, 0, 0, 0, loc)
	case "months":
		return time.Date(y, m+1, 1, 0, 0, 0, 0, loc)
	default: // years
		return time.Date(y+1, 1, 1, 0, 0, 0, 0, loc)
	}
}

func breakdown(t time.Time) map[string]any {
	wy, wk := t.ISOWeek()
	y := t.Year()
	return map[string]any{
		"iso":         t.Format(isoLayout),
		"unix":        t.Unix(),
		"unixMs":      t.UnixMilli(),
		"year":        y,
		"month":       int(t.Month()),
		"day":         t.Day(),
		"hour":        t.Hour(),
		"minute":      t.Minute(),
		"second":      t.Second(),
		"millisecond": t.Nanosecond() / 1e6,
		"dayOfWeek":   t.Weekday().String(),
		"isoWeekday":  isoWeekday(t),
		"dayOfYear":   t.YearDay(),
		"isoWeek":     wk,
		"isoWeekYear": wy,
		"isLeapYear":  daysIn(y, time.February) == 29,
		"daysInMonth": daysIn(y, t.Month()),
		"utcOffset":   offset(t),
	}
}
