package toolbag

import (
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func tools() []*tool.Tool {
	mk := func(name string, c tool.Category) *tool.Tool {
		return &tool.Tool{Def: tool.Def{Name: name, Description: "does " + name, Category: c}}
	}
	return []*tool.Tool{
		mk("worker_status", tool.CategoryMeta), mk("tool_search", tool.CategoryMeta),
		mk("assert_equals", tool.CategoryUtility), mk("assert_type", tool.CategoryUtility),
		mk("hash_text", tool.CategoryUtility), mk("url_parse", tool.CategoryUtility),
	}
}

func TestBags(t *testing.T) {
	t.Parallel()
	all := tools()
	if got := Resolve([]string{"category:meta", "assert_*"}, all); !slices.Equal(got, []string{"worker_status", "tool_search", "assert_equals", "assert_type"}) {
		t.Errorf("Resolve: %v", got)
	}
	b, err := New(Profiles{"mine": {"category:meta", "hash_text"}}, "mine", all)
	if err != nil {
		t.Fatal(err)
	}
	dyn := func(t *tool.Tool) bool { return t.Name == "url_parse" } // as if the agent had made it
	if got := b.Listed(all, dyn); !slices.Equal(got, []string{"hash_text", "tool_search", "url_parse", "worker_status"}) {
		t.Errorf("listed: %v", got)
	}
	if added := b.Load([]string{"assert_type", "hash_text"}); !slices.Equal(added, []string{"assert_type"}) {
		t.Errorf("Load adds only what is new: %v", added)
	}
	if removed := b.Unload([]string{"hash_text", "nope"}, all); !slices.Equal(removed, []string{"hash_text"}) {
		t.Errorf("Unload: %v", removed)
	}
	b.LoadAll()
	if !b.Shows("assert_equals", false) {
		t.Error("after LoadAll every tool shows")
	}
	b.Unload([]string{"assert_equals"}, all)
	if b.Shows("assert_equals", false) || !b.Shows("hash_text", false) {
		t.Error("unloading from all keeps the rest")
	}
	if _, err := New(Builtin, "nope", all); err == nil {
		t.Error("an unknown profile must be refused")
	}
	if Tokens(all[:1]) < 10 || Tokens(all) <= Tokens(all[:1]) {
		t.Errorf("Tokens: %d %d", Tokens(all[:1]), Tokens(all))
	}
}

// The configuration validates tools.listProfile against the built-in
// profiles without importing this package: the two lists must agree.
func TestConfigKnowsTheBuiltinProfiles(t *testing.T) {
	t.Parallel()
	var names []string
	for k := range Builtin {
		names = append(names, k)
	}
	slices.Sort(names)
	if !slices.Equal(names, config.BuiltinProfiles) {
		t.Errorf("toolbag.Builtin %v, config.BuiltinProfiles %v", names, config.BuiltinProfiles)
	}
}
