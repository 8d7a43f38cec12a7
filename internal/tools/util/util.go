// Package util holds the general-purpose utility tools (timestamp_now,
// url_parse, math_stats, env_info, http_status_info, date_utils, wait_ms,
// random_choice) and the example tools hello_world and json_validator.
package util

import (
	"fmt"
	"strings"
	"time"
	// The IANA time zone database is embedded so that timezone arguments work
	// the same in minimal containers without /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading the utility tools are listed under.
const Group = "Utility"

// ExamplesGroup is the heading the example tools are listed under.
const ExamplesGroup = "Examples"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return tools(time.Now)
}

// tools builds the family with the given clock, so that tests can fix "now".
func tools(now func() time.Time) []tool.Tool {
	return []tool.Tool{
		timestampNow(now),
		urlParse(),
		mathStats(),
		envInfo(),
		httpStatusInfo(),
		dateUtils(now),
		waitMs(),
		randomChoice(),
		helloWorld(),
		jsonValidator(),
	}
}

// invalid returns an INVALID_ARGS error about one argument, worded like the
// schema validator's messages.
func invalid(field, format string, args ...any) *tool.Error {
	return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s", field, fmt.Sprintf(format, args...))
}

// loadZone resolves an IANA time zone name; empty means UTC.
func loadZone(field, name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, invalid(field, "unknown time zone %q; use an IANA name such as \"UTC\", \"Europe/Berlin\" or \"America/New_York\"", name)
	}
	return loc, nil
}

// isoLayout is ISO 8601 / RFC 3339 with milliseconds, the form every tool
// here uses for instants ("Z" for UTC, otherwise the offset).
const isoLayout = "2006-01-02T15:04:05.000Z07:00"

// humanLayout is the human-readable form of timestamp_now.
const humanLayout = "Monday, January 2, 2006 at 3:04:05 PM MST"

func offset(t time.Time) string { return t.Format("-07:00") }
