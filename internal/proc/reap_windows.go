package proc

import (
	"context"
	"log/slog"
	"time"
)

// Reap does nothing on Windows: there are no zombies to reap.
func Reap(ctx context.Context, _ time.Duration, _ *slog.Logger) { <-ctx.Done() }

// ReapOrphans does nothing on Windows.
func ReapOrphans() int { return 0 }

// KillOrphans does nothing on Windows, where no process adopts orphans.
func KillOrphans() []int { return nil }

// KillByEnv does nothing on Windows, where no process environment is read.
func KillByEnv(map[string]string) []int { return nil }
