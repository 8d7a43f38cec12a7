package closest

import (
	"slices"
	"testing"
)

func TestNames(t *testing.T) {
	tools := []string{"hash_text", "browser_click", "browser_close", "db_pg_query", "selector", "session"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"hash_txt", []string{"hash_text"}},
		{"selectr", []string{"selector"}},
		{"browser_clik", []string{"browser_click", "browser_close"}},
		{"db_pg", []string{"db_pg_query"}},
		{"nothing_like_it", nil},
	} {
		if got := Names(tc.name, tools, 3); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("Names(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := Names("browser_c", tools, 1); len(got) != 1 {
		t.Errorf("n=1: %v", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"selectr", "selector", 1}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
