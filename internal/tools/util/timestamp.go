package util

import (
	"context"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func timestampNow(now func() time.Time) tool.Tool {
	type args struct {
		Format   string `json:"format"`
		Timezone string `json:"timezone"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "timestamp_now",
			Description: "Current time in one or all forms. Returns {timezone, utcOffset} plus the requested forms: " +
				"iso (ISO 8601 with milliseconds, e.g. \"2024-01-15T10:30:00.000Z\"), unix (seconds), unixMs (milliseconds) " +
				"and human (\"Monday, January 15, 2024 at 10:30:00 AM UTC\"); format \"all\" returns every form.",
			Phrases:  []string{"what time is it", "current date", "unix timestamp", "epoch seconds", "today's date", "current utc timestamp", "date command"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("format", "Which form to return").Enum("iso", "unix", "unixMs", "human", "all").Default("all"),
				schema.String("timezone", "IANA time zone the iso and human forms are expressed in, such as \"Europe/Berlin\"").Default("UTC"),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			loc, err := loadZone("timezone", in.Timezone)
			if err != nil {
				return nil, err
			}
			t := now().In(loc)
			out := map[string]any{"timezone": loc.String(), "utcOffset": offset(t)}
			all := in.Format == "" || in.Format == "all"
			if all || in.Format == "iso" {
				out["iso"] = t.Format(isoLayout)
			}
			if all || in.Format == "unix" {
				out["unix"] = t.Unix()
			}
			if all || in.Format == "unixMs" {
				out["unixMs"] = t.UnixMilli()
			}
			if all || in.Format == "human" {
				out["human"] = t.Format(humanLayout)
			}
			return out, nil
		}),
	}
}
