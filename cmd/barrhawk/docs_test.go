package main

import (
	"os"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/docs"
)

// The README's tool table is generated from the registry; this fails when
// they disagree. UPDATE_README=1 rewrites it.
func TestReadmeToolTable(t *testing.T) {
	t.Setenv("BARRHAWK_TEST_TOOLS", "") // fault tools are never documented
	d, err := app.NewDoctor(config.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := docs.Table(d.Registry().List())
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	updated, err := docs.Splice(string(readme), want)
	if err != nil {
		t.Fatal(err)
	}
	if updated == string(readme) {
		return
	}
	if os.Getenv("UPDATE_README") == "1" {
		if err := os.WriteFile("../../README.md", []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's tool table is out of date; run: UPDATE_README=1 go test ./cmd/barrhawk -run TestReadmeToolTable\nwant:\n%s", want)
}

// The README documents every configuration environment variable.
func TestReadmeDocumentsEnvVars(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range config.EnvVars {
		if !strings.Contains(string(readme), "`"+e.Name+"`") {
			t.Errorf("README does not document %s", e.Name)
		}
	}
}
