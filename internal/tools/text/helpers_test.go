package text

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestDefinitions(t *testing.T) {
	t.Parallel()
	tooltest.CheckFamily(t, Tools(), tooltest.Group(Group), "string_diff", "regex_test", "template_render", "hash_text")
}
