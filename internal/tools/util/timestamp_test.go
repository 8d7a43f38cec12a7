package util

import (
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestTimestampNow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{}`, `{"iso":"2024-07-04T15:30:45.123Z","unix":1720107045,"unixMs":1720107045123,
			"human":"Thursday, July 4, 2024 at 3:30:45 PM UTC","timezone":"UTC","utcOffset":"+00:00"}`},
		{`{"format":"all","timezone":"UTC"}`, `{"iso":"2024-07-04T15:30:45.123Z","unix":1720107045,"unixMs":1720107045123,
			"human":"Thursday, July 4, 2024 at 3:30:45 PM UTC","timezone":"UTC","utcOffset":"+00:00"}`},
		{`{"format":"iso"}`, `{"iso":"2024-07-04T15:30:45.123Z","timezone":"UTC","utcOffset":"+00:00"}`},
		{`{"format":"unix"}`, `{"unix":1720107045,"timezone":"UTC","utcOffset":"+00:00"}`},
		{`{"format":"unixMs"}`, `{"unixMs":1720107045123,"timezone":"UTC","utcOffset":"+00:00"}`},
		// Daylight saving time in New York in July.
		{`{"format":"human","timezone":"America/New_York"}`,
			`{"human":"Thursday, July 4, 2024 at 11:30:45 AM EDT","timezone":"America/New_York","utcOffset":"-04:00"}`},
		// Half-hour offset; the unix forms do not depend on the zone.
		{`{"timezone":"Asia/Kolkata"}`, `{"iso":"2024-07-04T21:00:45.123+05:30","unix":1720107045,"unixMs":1720107045123,
			"human":"Thursday, July 4, 2024 at 9:00:45 PM IST","timezone":"Asia/Kolkata","utcOffset":"+05:30"}`},
		// Crossing midnight into the next day.
		{`{"format":"iso","timezone":"Pacific/Kiritimati"}`, `{"iso":"2024-07-05T05:30:45.123+14:00","timezone":"Pacific/Kiritimati","utcOffset":"+14:00"}`},
	} {
		tooltest.WantJSON(t, "timestamp_now"+tc.args, run(t, "timestamp_now", tc.args), tc.want)
	}
}

func TestTimestampNowStandardTime(t *testing.T) {
	t.Parallel()
	winter := tools(func() time.Time { return time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC) })
	got := tooltest.MustRun(t, winter, "timestamp_now", `{"timezone":"America/New_York"}`)
	tooltest.WantJSON(t, "winter New York", got, `{"iso":"2024-01-15T07:00:00.000-05:00","unix":1705320000,"unixMs":1705320000000,
		"human":"Monday, January 15, 2024 at 7:00:00 AM EST","timezone":"America/New_York","utcOffset":"-05:00"}`)
}

func TestTimestampNowRealClock(t *testing.T) {
	t.Parallel()
	before := time.Now().UnixMilli()
	got := tooltest.MustRunObject(t, Tools(), "timestamp_now", `{"format":"unixMs"}`)
	after := time.Now().UnixMilli()
	if ms := int64(got["unixMs"].(float64)); ms < before || ms > after {
		t.Errorf("unixMs = %d, want between %d and %d", ms, before, after)
	}
}

func TestTimestampNowBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"timestamp_now", `{"timezone":"Mars/Olympus_Mons"}`, []string{`"timezone"`, `"Mars/Olympus_Mons"`, "IANA"}},
		{"timestamp_now", `{"timezone":"EST5EDT/../../etc"}`, []string{`"timezone"`}},
		{"timestamp_now", `{"format":"rfc"}`, []string{`"format"`, `"unixMs"`}},
		{"timestamp_now", `{"format":5}`, []string{`"format"`, "expected string"}},
	})
}
