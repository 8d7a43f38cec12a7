// Package builtin lists every built-in tool family; it is the one place a new
// family is added.
package builtin

import (
	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/assert"
	browsertools "github.com/barrhawk/barrhawk/internal/tools/browser"
	"github.com/barrhawk/barrhawk/internal/tools/browserassert"
	"github.com/barrhawk/barrhawk/internal/tools/data"
	"github.com/barrhawk/barrhawk/internal/tools/db"
	"github.com/barrhawk/barrhawk/internal/tools/docker"
	"github.com/barrhawk/barrhawk/internal/tools/fault"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
	githubtools "github.com/barrhawk/barrhawk/internal/tools/github"
	"github.com/barrhawk/barrhawk/internal/tools/report"
	"github.com/barrhawk/barrhawk/internal/tools/testanalysis"
	"github.com/barrhawk/barrhawk/internal/tools/text"
	"github.com/barrhawk/barrhawk/internal/tools/transform"
	"github.com/barrhawk/barrhawk/internal/tools/util"
	"github.com/barrhawk/barrhawk/internal/tools/web"
)

// Tools returns every built-in tool that runs in an Igor, family by family,
// and the fault-injection tools when BARRHAWK_TEST_TOOLS=1; the tools whose
// calls are tests take record.TestNameArg.
func Tools() []tool.Tool {
	var out []tool.Tool
	for _, family := range [][]tool.Tool{
		util.Tools(),
		assert.Tools(),
		data.Tools(),
		testanalysis.Tools(),
		report.Tools(),
		text.Tools(),
		transform.Tools(),
		web.Tools(),
		fs.Tools(),
		db.Tools(),
		browsertools.Tools(),
		browserassert.Tools(),
		docker.Tools(),
		githubtools.Tools(),
	} {
		out = append(out, family...)
	}
	if fault.Enabled() {
		out = append(out, fault.Tools()...)
	}
	return record.WithTestName(out)
}
