// Package logging builds the process's slog logger from config: stderr
// always (stdout is protocol in serve and igor), and optionally a rotated
// file.
package logging

import (
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/barrhawk/barrhawk/internal/config"
	"gopkg.in/natefinch/lumberjack.v2"
)

// New returns a logger for cfg writing to stderr (and cfg.File when set), the
// level variable that logging/setLevel and flags adjust, and a closer for the
// file.
func New(cfg config.Log) (*slog.Logger, *slog.LevelVar, io.Closer) {
	level := new(slog.LevelVar)
	level.Set(ParseLevel(cfg.Level))
	var w io.Writer = os.Stderr
	var closer io.Closer = io.NopCloser(nil)
	if cfg.File != "" {
		lj := &lumberjack.Logger{Filename: cfg.File, MaxSize: 10, MaxBackups: 3}
		w, closer = io.MultiWriter(os.Stderr, lj), lj
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if cfg.Format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(h), level, closer
}

// ParseLevel reads debug, info, warn or error; anything else is info.
func ParseLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}
