package main

import (
	"github.com/spf13/cobra"

	"github.com/barrhawk/barrhawk/internal/config"
)

// loadConfig reads the configuration, with the flags the user set on top.
func loadConfig(cmd *cobra.Command) (config.Config, error) {
	fs := cmd.Flags()
	set := map[string]any{}
	for flag, key := range map[string]string{
		"log-level":    "log.level",
		"max-igors":    "igors.maxWorkers",
		"strategy":     "igors.strategy",
		"tool-timeout": "tools.defaultTimeout",
		"record-db":    "dashboard.db",
	} {
		if f := fs.Lookup(flag); f != nil && f.Changed {
			set[key] = f.Value.String()
		}
	}
	if all, err := fs.GetBool("all-tools"); err == nil && all {
		set["tools.listProfile"] = "all"
	}
	path, _ := fs.GetString("config")
	return config.Load(path, set)
}
