package search

import (
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"Generate fake_users, please!": {"generate", "fake", "user"},
		"the tests are failing":        {"test", "fail"},
		"strings and statuses":         {"string", "status"},
		"hashes matches":               {"hash", "match"},
		"flaky CI runs in 2026":        {"flaky", "ci", "run", "2026"},
	} {
		if got := Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSearchRanksNameOverDescriptionAndUsesSynonyms(t *testing.T) {
	t.Parallel()
	mk := func(name, desc string, cat tool.Category) *tool.Tool {
		return &tool.Tool{Def: tool.Def{Name: name, Description: desc, Category: cat, Input: schema.Object(schema.String("text", "Text to work on"))}}
	}
	ix := New([]*tool.Tool{
		mk("hash_text", "Hash text with md5 or sha256.", tool.CategoryUtility),
		mk("text_stats", "Counts of a text, such as its hash length.", tool.CategoryUtility),
		mk("worker_status", "Health of the workers.", tool.CategoryMeta),
	})
	hits := ix.Search("checksum", 5, "")
	if len(hits) == 0 || hits[0].Tool.Name != "hash_text" {
		t.Fatalf("a synonym: %v", hits)
	}
	if hits := ix.Search("hash", 5, ""); len(hits) < 2 || hits[0].Tool.Name != "hash_text" {
		t.Errorf("the name outweighs the description: %v", hits)
	}
	if hits := ix.Search("worker_status", 1, ""); len(hits) != 1 || hits[0].Tool.Name != "worker_status" {
		t.Errorf("an exact name: %v", hits)
	}
	if hits := ix.Search("hash", 5, tool.CategoryMeta); len(hits) != 0 {
		t.Errorf("category filter: %v", hits)
	}
	if hits := ix.Search("the a of", 5, ""); len(hits) != 0 {
		t.Errorf("filler words alone match nothing: %v", hits)
	}
}
