package util

import (
	"context"
	"math"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// maxWait is the longest wait_ms sleeps.
const maxWait = 30000

func waitMs() tool.Tool {
	type args struct {
		Ms float64 `json:"ms"` // float64 so that 100.0 binds as well as 100
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "wait_ms",
			Description: "Sleep for ms milliseconds (0 to 30000), for pacing or letting a system settle. Returns {waited (milliseconds actually slept), requested}. " +
				"Returns CANCELLED at once if the call is cancelled.",
			Phrases:  []string{"pause execution", "delay before next step", "hold on a few seconds", "setTimeout", "hard wait", "fixed delay", "let it settle", "sleep between requests", "throttle for rate limit"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Integer("ms", "Milliseconds to wait, 0 to 30000").Min(0).Max(maxWait).Required(),
			),
			RequiresWorker: true,
			// Longer than the longest wait, so the default 30 s tool timeout
			// does not cut off a 30000 ms wait.
			Timeout: 35 * time.Second,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			if in.Ms < 0 || in.Ms > maxWait || in.Ms != math.Trunc(in.Ms) {
				return nil, invalid("ms", "expected a whole number of milliseconds from 0 to %d, got %v", maxWait, in.Ms)
			}
			ms := int64(in.Ms)
			start := time.Now()
			if err := ctx.Err(); err != nil {
				return nil, tool.Errorf(tool.CodeCancelled, "wait_ms: cancelled before waiting: %v", err)
			}
			if ms == 0 {
				return map[string]any{"waited": 0, "requested": 0}, nil
			}
			timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
			defer timer.Stop()
			select {
			case <-ctx.Done():
				return nil, tool.Errorf(tool.CodeCancelled, "wait_ms: cancelled after %d of %d ms: %v",
					time.Since(start).Milliseconds(), ms, ctx.Err())
			case <-timer.C:
			}
			return map[string]any{"waited": time.Since(start).Milliseconds(), "requested": ms}, nil
		}),
	}
}
