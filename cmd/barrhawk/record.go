package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/testreport"
)

func recordCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "record", Short: "Work with the record of calls and test runs (dashboard.db) that the dashboard shows"}
	usageErrorsExit2(cmd)
	cmd.AddCommand(recordImportCmd())
	return cmd
}

// recordOpenTimeout bounds reaching the record's database.
const recordOpenTimeout = 30 * time.Second

func recordImportCmd() *cobra.Command {
	var o record.FileImport
	var asJSON bool
	var format string
	cmd := &cobra.Command{
		Use:   "import FILE...",
		Short: "Record test reports (JUnit XML, TAP, go test -json, Playwright or Jest JSON) as runs, as from CI",
		Long: `Each file is read (its format told by its content) and recorded as one run in the record
(dashboard.db, or --db): an SQLite file, or the postgres:// URL a team's servers share. The
run's origin is this machine, its working directory, and on GitHub Actions, GitLab CI,
Jenkins, Buildkite or CircleCI the CI's branch, commit and build URL; --branch and --commit
win over them. The same file imported twice (same content) is one run.

  barrhawk record import --db "$RECORD_URL" --branch main --commit "$SHA" reports/*.xml

It prints each run's id and counts. A file that cannot be read or is not a report is named
(with the line) on stderr, the others are still recorded, and the exit code is 2.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return badInput(fmt.Errorf("%s wants one or more report files", cmd.CommandPath()))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, files []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return badInput(err)
			}
			if o.Format, err = testreport.ParseFormat("--format", format); err != nil {
				return badInput(err)
			}
			db := cfg.Dashboard.DB
			if v, _ := cmd.Flags().GetString("db"); v != "" {
				db = v
			}
			s, err := record.Open(db)
			if err != nil {
				return badInput(err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), recordOpenTimeout)
			defer cancel()
			if err := s.Ready(ctx); err != nil {
				return err // it names the database, password masked
			}
			var bad []string
			var done []record.FileImported
			for _, f := range files {
				imp, err := record.ImportFile(cmd.Context(), s, f, o)
				if err != nil {
					if errors.Is(err, record.ErrNotReady) || cmd.Context().Err() != nil {
						return err
					}
					fmt.Fprintln(cmd.ErrOrStderr(), "barrhawk record import:", err)
					bad = append(bad, f)
					continue
				}
				done = append(done, imp)
				if !asJSON {
					fmt.Fprintln(cmd.OutOrStdout(), importLine(imp))
				}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(map[string]any{"runs": done, "failed": bad}); err != nil {
					return err
				}
			}
			if len(bad) > 0 {
				return badInput(fmt.Errorf("%d of %d files were not recorded: %s", len(bad), len(files), strings.Join(bad, ", ")))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Origin.Branch, "branch", "", "the branch the reports were made on (default: the CI's)")
	cmd.Flags().StringVar(&o.Origin.Commit, "commit", "", "the commit the reports were made on (default: the CI's)")
	cmd.Flags().StringVar(&o.Name, "name", "", "the runs' name (default: each file's name and format)")
	cmd.Flags().String("db", "", "the record: an SQLite file or a postgres:// URL (default dashboard.db)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the runs as JSON")
	cmd.Flags().StringVar(&format, "format", "auto", "the reports' format: auto (told by each file's content), junit, tap, gotest, playwright or jest")
	return cmd
}

// importLine is one imported file as import prints it.
func importLine(imp record.FileImported) string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %d: %s (%s): %d tests, %d passed, %d failed, %d skipped", imp.RunID, imp.Path, imp.Format, imp.Tests, imp.Passed, imp.Failed, imp.Skipped)
	var where []string
	for _, kv := range [][2]string{{"host", imp.Origin.Host}, {"branch", imp.Origin.Branch}, {"commit", imp.Origin.Commit}, {"build", imp.Origin.BuildURL}} {
		if kv[1] != "" {
			where = append(where, kv[0]+" "+kv[1])
		}
	}
	if len(where) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(where, ", "))
	}
	if !imp.New {
		b.WriteString("; already recorded")
	}
	return b.String()
}
