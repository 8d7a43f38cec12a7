package main

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/docs"
	"github.com/spf13/cobra"
)

func toolsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "tools", Short: "Inspect the tools"}
	var asJSON, asMarkdown bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List every tool (--json for the full definitions, --markdown for the reference in docs/tools.md)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			d, err := app.NewDoctor(cfg, nil)
			if err != nil {
				return err
			}
			defer d.Close()
			if err := d.Start(cmd.Context()); err != nil { // loads the dynamic tools too
				fmt.Fprintln(os.Stderr, "barrhawk: dynamic tools not listed:", err)
			}
			tools := d.Registry().List()
			switch {
			case asJSON:
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(docs.Definitions(tools))
			case asMarkdown:
				_, err := fmt.Fprint(os.Stdout, docs.Reference(tools))
				return err
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tGROUP\tWHERE\tDESCRIPTION")
			for _, t := range tools {
				where := "igor"
				if !t.RequiresWorker {
					where = "front"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", t.Name, t.Group, where, docs.FirstSentence(t.Description))
			}
			return w.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print the full definitions as JSON")
	list.Flags().BoolVar(&asMarkdown, "markdown", false, "print the tool reference of docs/tools.md (its generated part)")
	cmd.AddCommand(list)
	return cmd
}
