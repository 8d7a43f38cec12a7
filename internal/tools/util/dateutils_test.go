package util

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestDateUtilsAdd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		// Month arithmetic clamps to the month end.
		{`{"operation":"add","date":"2024-01-31","amount":1,"unit":"months"}`,
			`{"result":"2024-02-29T00:00:00.000Z","unixMs":1709164800000,"clamped":true,"date":"2024-01-31T00:00:00.000Z","amount":1,"unit":"months"}`},
		{`{"operation":"add","date":"2023-01-31","amount":1,"unit":"months"}`, `{"result":"2023-02-28T00:00:00.000Z","clamped":true}`},
		{`{"operation":"add","date":"2024-02-29T12:00:00Z","amount":1,"unit":"years"}`, `{"result":"2025-02-28T12:00:00.000Z","clamped":true}`},
		{`{"operation":"add","date":"2024-02-29","amount":4,"unit":"years"}`, `{"result":"2028-02-29T00:00:00.000Z","clamped":false}`},
		{`{"operation":"subtract","date":"2024-03-31","amount":1,"unit":"months"}`, `{"result":"2024-02-29T00:00:00.000Z","clamped":true,"operation":"subtract"}`},
		{`{"operation":"add","date":"2024-01-31","amount":-13,"unit":"months"}`, `{"result":"2022-12-31T00:00:00.000Z","clamped":false}`},
		{`{"operation":"add","date":"2024-11-30","amount":3,"unit":"months"}`, `{"result":"2025-02-28T00:00:00.000Z","clamped":true}`},
		{`{"operation":"add","date":"2024-01-15T10:00:00Z","amount":1,"unit":"months"}`, `{"result":"2024-02-15T10:00:00.000Z","clamped":false}`},
		// Exact units, fractions allowed.
		{`{"operation":"add","date":"2024-01-15T10:00:00Z","amount":1.5,"unit":"hours"}`, `{"result":"2024-01-15T11:30:00.000Z"}`},
		{`{"operation":"add","date":"2024-01-15T10:00:00Z","amount":1500,"unit":"milliseconds"}`, `{"result":"2024-01-15T10:00:01.500Z"}`},
		{`{"operation":"subtract","date":"2024-01-01T00:00:00Z","amount":1,"unit":"seconds"}`, `{"result":"2023-12-31T23:59:59.000Z"}`},
		{`{"operation":"add","date":"2024-02-28","amount":1,"unit":"days"}`, `{"result":"2024-02-29T00:00:00.000Z","clamped":false}`},
		{`{"operation":"add","date":"2023-02-28","amount":1,"unit":"days"}`, `{"result":"2023-03-01T00:00:00.000Z"}`},
		{`{"operation":"add","date":"2024-07-04","amount":2,"unit":"weeks"}`, `{"result":"2024-07-18T00:00:00.000Z"}`},
		{`{"operation":"add","amount":10,"unit":"minutes"}`, `{"date":"2024-07-04T15:30:45.123Z","result":"2024-07-04T15:40:45.123Z"}`},
		// DST in New York (spring forward 2024-03-10): a calendar day keeps the wall clock, 24 hours do not.
		{`{"operation":"add","date":"2024-03-09T12:00:00","amount":1,"unit":"days","timezone":"America/New_York"}`,
			`{"date":"2024-03-09T12:00:00.000-05:00","result":"2024-03-10T12:00:00.000-04:00","timezone":"America/New_York"}`},
		{`{"operation":"add","date":"2024-03-09T12:00:00","amount":24,"unit":"hours","timezone":"America/New_York"}`,
			`{"result":"2024-03-10T13:00:00.000-04:00"}`},
		// An explicit offset is kept as the instant and shown in the timezone.
		{`{"operation":"add","date":"2024-01-15T23:00:00-05:00","amount":1,"unit":"hours","timezone":"Europe/Paris"}`,
			`{"date":"2024-01-16T05:00:00.000+01:00","result":"2024-01-16T06:00:00.000+01:00"}`},
	} {
		subset(t, "date_utils"+tc.args, run(t, "date_utils", tc.args), tc.want)
	}
}

func TestDateUtilsDiff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"operation":"diff","date":"2024-01-01","date2":"2024-03-01"}`, `{"operation":"diff","date":"2024-01-01T00:00:00.000Z",
			"date2":"2024-03-01T00:00:00.000Z","timezone":"UTC","milliseconds":5184000000,"seconds":5184000,"minutes":86400,
			"hours":1440,"days":60,"weeks":8.571428571428571,"calendarDays":60,"months":2,"years":0}`},
		{`{"operation":"diff","date":"2024-01-01","date2":"2024-01-01T06:00:00Z","unit":"hours"}`, `{"unit":"hours","value":6,"hours":6,"days":0.25,"calendarDays":0}`},
		// date2 before date: negative.
		{`{"operation":"diff","date":"2024-03-31","date2":"2024-02-29"}`, `{"days":-31,"calendarDays":-31,"months":-1,"years":0}`},
		// Whole months and years are truncated.
		{`{"operation":"diff","date":"2020-02-29","date2":"2024-02-28"}`, `{"months":47,"years":3,"calendarDays":1460}`},
		{`{"operation":"diff","date":"2020-02-29","date2":"2024-02-29"}`, `{"months":48,"years":4}`},
		{`{"operation":"diff","date":"2024-01-31","date2":"2024-02-29"}`, `{"months":1}`},
		{`{"operation":"diff","date":"2024-01-31T12:00:00Z","date2":"2024-02-29T11:59:59Z"}`, `{"months":0}`},
		// Across the spring-forward night: 47 elapsed hours, 2 calendar days.
		{`{"operation":"diff","date":"2024-03-09","date2":"2024-03-11","timezone":"America/New_York"}`,
			`{"hours":47,"days":1.9583333333333333,"calendarDays":2}`},
		// date defaults to now; date2 as unix seconds.
		{`{"operation":"diff","date2":1720107046,"unit":"milliseconds"}`, `{"value":876.543211}`},
	} {
		subset(t, "date_utils"+tc.args, run(t, "date_utils", tc.args), tc.want)
	}
}

func TestDateUtilsFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"operation":"format","format":"iso"}`, `{"operation":"format","date":"2024-07-04T15:30:45.123Z","format":"iso","timezone":"UTC","result":"2024-07-04T15:30:45.123Z"}`},
		{`{"operation":"format","format":"rfc3339"}`, `{"result":"2024-07-04T15:30:45Z"}`},
		{`{"operation":"format","format":"rfc1123"}`, `{"result":"Thu, 04 Jul 2024 15:30:45 UTC"}`},
		{`{"operation":"format","format":"date"}`, `{"result":"2024-07-04"}`},
		{`{"operation":"format","format":"time"}`, `{"result":"15:30:45"}`},
		{`{"operation":"format","format":"unix"}`, `{"result":"1720107045"}`},
		{`{"operation":"format","format":"unixMs"}`, `{"result":"1720107045123"}`},
		{`{"operation":"format","format":"Jan 2, 2006 at 15:04 MST","timezone":"Europe/Paris"}`, `{"result":"Jul 4, 2024 at 17:30 CEST"}`},
		{`{"operation":"format","format":"2006年01月02日 Monday","date":"2024-02-29"}`, `{"result":"2024年02月29日 Thursday"}`},
		{`{"operation":"format","format":"date","date":"2024-12-31T23:30:00-02:00"}`, `{"result":"2025-01-01"}`},
	} {
		subset(t, "date_utils"+tc.args, run(t, "date_utils", tc.args), tc.want)
	}
}

func TestDateUtilsParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"operation":"parse","date":"2024-02-29T10:15:30.250+05:30"}`, `{"operation":"parse","input":"2024-02-29T10:15:30.250+05:30",
			"date":"2024-02-29T04:45:30.250Z","iso":"2024-02-29T04:45:30.250Z","timezone":"UTC","utcOffset":"+00:00",
			"unix":1709181930,"unixMs":1709181930250,"year":2024,"month":2,"day":29,"hour":4,"minute":45,"second":30,"millisecond":250,
			"dayOfWeek":"Thursday","isoWeekday":4,"dayOfYear":60,"isoWeek":9,"isoWeekYear":2024,"isLeapYear":true,"daysInMonth":29}`},
		{`{"operation":"parse","date":"2023-02-15"}`, `{"isLeapYear":false,"daysInMonth":28}`},
		{`{"operation":"parse","date":"1900-02-01"}`, `{"isLeapYear":false,"daysInMonth":28}`},
		{`{"operation":"parse","date":"2000-02-01"}`, `{"isLeapYear":true,"daysInMonth":29}`},
		// 1 January 2021 is a Friday in ISO week 53 of 2020.
		{`{"operation":"parse","date":"2021-01-01"}`, `{"isoWeek":53,"isoWeekYear":2020,"dayOfWeek":"Friday","isoWeekday":5,"dayOfYear":1}`},
		// Local date-time read in the timezone.
		{`{"operation":"parse","date":"2024-01-15 10:30","timezone":"Asia/Kolkata"}`, `{"iso":"2024-01-15T10:30:00.000+05:30","unix":1705294800,"utcOffset":"+05:30"}`},
		{`{"operation":"parse","date":"2024-07-01T09:00","timezone":"America/New_York"}`, `{"iso":"2024-07-01T09:00:00.000-04:00","utcOffset":"-04:00"}`},
		// Unix seconds as a number or a digit string, with fractions.
		{`{"operation":"parse","date":1700000000}`, `{"iso":"2023-11-14T22:13:20.000Z","input":1700000000}`},
		{`{"operation":"parse","date":"1700000000.5"}`, `{"iso":"2023-11-14T22:13:20.500Z"}`},
		{`{"operation":"parse","date":0}`, `{"iso":"1970-01-01T00:00:00.000Z","year":1970}`},
		{`{"operation":"parse","date":"2024-01-15T10:30:00+0100"}`, `{"iso":"2024-01-15T09:30:00.000Z"}`},
		{`{"operation":"parse","date":"Mon, 15 Jan 2024 10:30:00 GMT"}`, `{"iso":"2024-01-15T10:30:00.000Z"}`},
		// An explicit layout.
		{`{"operation":"parse","date":"29/02/2024 18:05","format":"02/01/2006 15:04","timezone":"Europe/London"}`,
			`{"iso":"2024-02-29T18:05:00.000Z","format":"02/01/2006 15:04","utcOffset":"+00:00"}`},
		{`{"operation":"parse","date":"1720107045123","format":"unixMs"}`, `{"iso":"2024-07-04T15:30:45.123Z"}`},
		{`{"operation":"parse","date":"2024-07-04","format":"date"}`, `{"iso":"2024-07-04T00:00:00.000Z"}`},
	} {
		subset(t, "date_utils"+tc.args, run(t, "date_utils", tc.args), tc.want)
	}
}

func TestDateUtilsStartEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ op, date, unit, tz, want string }{
		{"startOf", "2024-07-04T15:30:45.123Z", "weeks", "", "2024-07-01T00:00:00.000Z"},
		{"endOf", "2024-07-04T15:30:45.123Z", "weeks", "", "2024-07-07T23:59:59.999Z"},
		{"startOf", "2024-07-07T10:00:00Z", "weeks", "", "2024-07-01T00:00:00.000Z"}, // Sunday ends the ISO week
		{"startOf", "2024-07-04T15:30:45.123Z", "days", "", "2024-07-04T00:00:00.000Z"},
		{"endOf", "2024-07-04T15:30:45.123Z", "days", "", "2024-07-04T23:59:59.999Z"},
		{"startOf", "2024-07-04T15:30:45.123Z", "hours", "", "2024-07-04T15:00:00.000Z"},
		{"endOf", "2024-07-04T15:30:45.123Z", "minutes", "", "2024-07-04T15:30:59.999Z"},
		{"startOf", "2024-07-04T15:30:45.123Z", "seconds", "", "2024-07-04T15:30:45.000Z"},
		{"endOf", "2024-07-04T15:30:45.123Z", "milliseconds", "", "2024-07-04T15:30:45.123Z"},
		{"endOf", "2024-02-10", "months", "", "2024-02-29T23:59:59.999Z"},
		{"endOf", "2023-02-10", "months", "", "2023-02-28T23:59:59.999Z"},
		{"startOf", "2024-07-04", "years", "", "2024-01-01T00:00:00.000Z"},
		{"endOf", "9999-06-01", "years", "", "9999-12-31T23:59:59.999Z"},
		{"endOf", "2024-07-04", "years", "", "2024-12-31T23:59:59.999Z"},
		// Fall-back day in New York: 25 hours, the offset changes within it.
		{"startOf", "2024-11-03T12:00:00", "days", "America/New_York", "2024-11-03T00:00:00.000-04:00"},
		{"endOf", "2024-11-03T12:00:00", "days", "America/New_York", "2024-11-03T23:59:59.999-05:00"},
		// The second 01:30 of that night stays in its own hour.
		{"startOf", "2024-11-03T06:30:00Z", "hours", "America/New_York", "2024-11-03T01:00:00.000-05:00"},
		{"startOf", "2024-11-03T05:30:00Z", "hours", "America/New_York", "2024-11-03T01:00:00.000-04:00"},
		// The calendar day depends on the zone.
		{"startOf", "2024-07-04T23:30:00Z", "days", "Asia/Tokyo", "2024-07-05T00:00:00.000+09:00"},
	} {
		args := tooltest.Marshal(map[string]string{"operation": tc.op, "date": tc.date, "unit": tc.unit, "timezone": tc.tz})
		subset(t, "date_utils"+args, run(t, "date_utils", args), tooltest.Marshal(map[string]string{"result": tc.want, "unit": tc.unit}))
	}
}

func TestDateUtilsWeekdays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"operation":"isWeekend"}`, `{"operation":"isWeekend","date":"2024-07-04T15:30:45.123Z","timezone":"UTC","isWeekend":false,"dayOfWeek":"Thursday"}`},
		{`{"operation":"isWeekend","date":"2024-07-06"}`, `{"isWeekend":true,"dayOfWeek":"Saturday"}`},
		{`{"operation":"isWeekend","date":"2024-07-07"}`, `{"isWeekend":true,"dayOfWeek":"Sunday"}`},
		{`{"operation":"isWeekend","date":"2024-07-08"}`, `{"isWeekend":false,"dayOfWeek":"Monday"}`},
		// Friday 23:00 UTC is already Saturday in Tokyo.
		{`{"operation":"isWeekend","date":"2024-07-05T23:00:00Z","timezone":"Asia/Tokyo"}`, `{"isWeekend":true,"dayOfWeek":"Saturday"}`},
		{`{"operation":"dayOfWeek"}`, `{"operation":"dayOfWeek","date":"2024-07-04T15:30:45.123Z","timezone":"UTC","dayOfWeek":"Thursday","isoWeekday":4}`},
		{`{"operation":"dayOfWeek","date":"2024-07-07"}`, `{"dayOfWeek":"Sunday","isoWeekday":7}`},
		{`{"operation":"dayOfWeek","date":"2024-07-01"}`, `{"dayOfWeek":"Monday","isoWeekday":1}`},
		{`{"operation":"dayOfWeek","date":"2024-02-29"}`, `{"dayOfWeek":"Thursday","isoWeekday":4}`},
	} {
		subset(t, "date_utils"+tc.args, run(t, "date_utils", tc.args), tc.want)
	}
	// The weekday results have exactly the documented keys.
	tooltest.WantJSON(t, "dayOfWeek keys", run(t, "date_utils", `{"operation":"dayOfWeek","date":"2024-07-07"}`),
		`{"operation":"dayOfWeek","date":"2024-07-07T00:00:00.000Z","timezone":"UTC","dayOfWeek":"Sunday","isoWeekday":7}`)
}

func TestDateUtilsBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"date_utils", `{}`, []string{`"operation"`, "required"}},
		{"date_utils", `{"operation":"multiply"}`, []string{`"operation"`, `"startOf"`}},
		{"date_utils", `{"operation":"add","unit":"days"}`, []string{`"amount"`, "required", `"add"`}},
		{"date_utils", `{"operation":"subtract","amount":1}`, []string{`"unit"`, "required", "months"}},
		{"date_utils", `{"operation":"diff","date":"2024-01-01"}`, []string{`"date2"`, "required"}},
		{"date_utils", `{"operation":"format"}`, []string{`"format"`, "required"}},
		{"date_utils", `{"operation":"parse"}`, []string{`"date"`, "required"}},
		{"date_utils", `{"operation":"startOf"}`, []string{`"unit"`, "required"}},
		{"date_utils", `{"operation":"endOf","unit":"fortnights"}`, []string{`"unit"`, `"weeks"`}},
		{"date_utils", `{"operation":"parse","date":"next tuesday"}`, []string{`"date"`, `"next tuesday"`, "YYYY-MM-DD"}},
		{"date_utils", `{"operation":"parse","date":"2023-02-29"}`, []string{`"date"`, "day out of range"}},
		{"date_utils", `{"operation":"parse","date":"2024-13-01"}`, []string{`"date"`, "month out of range"}},
		{"date_utils", `{"operation":"parse","date":""}`, []string{`"date"`}},
		{"date_utils", `{"operation":"parse","date":true}`, []string{`"date"`, "expected string or number"}},
		{"date_utils", `{"operation":"diff","date2":"soon"}`, []string{`"date2"`, `"soon"`}},
		{"date_utils", `{"operation":"dayOfWeek","timezone":"Atlantis/Capital"}`, []string{`"timezone"`, `"Atlantis/Capital"`}},
		{"date_utils", `{"operation":"add","amount":"1","unit":"days"}`, []string{`"amount"`, "expected number"}},
		{"date_utils", `{"operation":"add","amount":1.5,"unit":"days"}`, []string{`"amount"`, "whole number", `"days"`}},
		{"date_utils", `{"operation":"add","amount":0.5,"unit":"months"}`, []string{`"amount"`, "whole number"}},
		{"date_utils", `{"operation":"add","date":"2024-01-01","amount":8000,"unit":"years"}`, []string{`"amount"`, "0000-9999"}},
		{"date_utils", `{"operation":"add","amount":1e12,"unit":"hours"}`, []string{`"amount"`, "too large"}},
		{"date_utils", `{"operation":"parse","date":1e15}`, []string{`"date"`, "0000-9999"}},
		{"date_utils", `{"operation":"parse","date":"2024-01-15","format":"02/01/2006"}`, []string{`"date"`, `"02/01/2006"`}},
	})
}
