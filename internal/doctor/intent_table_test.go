package doctor

import (
	"slices"
	"strings"
	"testing"
)

// intentRequests are plain requests of the kinds the seeds describe, each
// with the tools a QA engineer would call for it, written before the
// analyzer was tuned to them. In want, "a|b" is one need either tool meets
// (both, when suggested, count as right); a name starting with "?" is
// allowed but not needed. par is the parallelizable expected: 1 true,
// -1 false, 0 not judged.
var intentRequests = []struct {
	text string
	want []string
	par  int
}{
	// Browser flows.
	{"Log in to the staging app as admin and check the dashboard shows 3 widgets", []string{"browser_navigate", "browser_type|browser_fill_form", "browser_click", "assert_count"}, -1},
	{"Open https://shop.example.com, add the first product to the cart and check the cart badge says 1", []string{"browser_navigate", "browser_click", "assert_text"}, -1},
	{"Take a screenshot of the pricing page at mobile and desktop sizes", []string{"browser_navigate", "browser_resize", "browser_screenshot"}, 1},
	{"Sign up a new user with generated data and make sure the welcome message is visible", []string{"data_generate", "browser_navigate", "browser_fill_form|browser_type", "browser_click", "assert_visible"}, -1},
	{"Check the home page for accessibility problems", []string{"browser_navigate", "accessibility_audit"}, -1},
	{"Go to localhost:3000/login, submit the form empty and verify an error message appears", []string{"browser_navigate", "browser_click", "assert_visible"}, -1},
	{"Make sure the page title of https://example.com is 'Example Domain'", []string{"browser_navigate", "assert_title"}, -1},
	{"Click the Settings link and confirm we end up on /settings", []string{"browser_click", "assert_url"}, -1},
	{"Log in as alice and as bob in separate sessions and check each sees only their own orders", []string{"browser_session_new", "browser_session_switch", "browser_navigate", "browser_type|browser_fill_form", "browser_click", "assert_text|assert_count|assert_visible"}, 0},
	{"Upload avatar.png on the profile page and check the new picture is shown", []string{"browser_navigate", "browser_file_upload", "assert_visible"}, -1},
	{"Choose 'Germany' from the country dropdown and check the VAT field appears", []string{"browser_select_option", "assert_visible"}, -1},
	{"Collect the JavaScript console errors while loading the checkout page", []string{"browser_navigate", "browser_console_messages"}, -1},
	{"Which API calls does the dashboard page make when it loads", []string{"browser_navigate", "browser_network_requests"}, -1},
	{"Hover over the help icon and check the tooltip text", []string{"browser_hover", "assert_text"}, -1},
	{"Save the invoice page as a PDF", []string{"browser_navigate", "browser_pdf_save"}, -1},
	{"Record a trace while I go through the checkout flow", []string{"browser_start_tracing", "browser_navigate", "browser_click", "?browser_fill_form", "browser_stop_tracing"}, -1},
	{"Scroll to the bottom of the blog page and make sure more posts load", []string{"browser_navigate", "browser_scroll", "assert_count"}, -1},
	{"Accept the delete confirmation dialog and verify the item is gone", []string{"browser_handle_dialog", "browser_click", "assert_hidden"}, -1},
	{"Drag the card from To Do to Done", []string{"browser_drag"}, -1},
	{"Check that every image on the landing page has alt text", []string{"browser_navigate", "accessibility_audit|assert_attribute|browser_get_elements"}, -1},
	{"Type 'laptop' into the search box, press Enter and check at least 5 results are listed", []string{"browser_type", "browser_press_key", "assert_count"}, -1},
	{"Test the login flow", []string{"browser_navigate", "browser_type|browser_fill_form", "browser_click", "assert_url|assert_visible"}, -1},
	{"Read the text of the error banner after submitting the signup form", []string{"browser_fill_form|browser_type", "browser_click", "browser_get_text"}, -1},

	// Data checks.
	{"Compare the users table in postgres with what the redis cache holds", []string{"db_pg_connect", "db_pg_query", "db_redis_connect", "db_redis_get|db_redis_hash|db_redis_keys", "object_diff"}, 1},
	{"What columns does the orders table have in our postgres database", []string{"db_pg_connect", "db_pg_schema"}, -1},
	{"Seed the test database with 50 fake customers", []string{"data_generate", "db_pg_connect", "db_pg_seed"}, -1},
	{"Run the migration queries in one transaction on postgres", []string{"db_pg_connect", "db_pg_transaction"}, -1},
	{"Open app.db with sqlite and count the rows in sessions", []string{"db_sqlite_open", "db_sqlite_query"}, -1},
	{"Read the feature flags hash from redis and make sure new_checkout is on", []string{"db_redis_connect", "db_redis_hash", "assert_equals|assert_truthy"}, -1},
	{"Clear the redis cache before the test run", []string{"db_redis_connect", "db_redis_flush"}, -1},
	{"Verify the API response matches the JSON schema in schema.json", []string{"http_request", "fs_read", "assert_json_schema|json_validator"}, -1},
	{"Call GET /api/health and assert it returns 200", []string{"http_request", "assert_equals"}, -1},
	{"POST a new order to the API and check it shows up in the orders table", []string{"http_request", "db_pg_connect|db_sqlite_open", "db_pg_query|db_sqlite_query", "assert_equals|assert_count|assert_contains"}, -1},
	{"Generate 100 example records that satisfy this JSON schema", []string{"data_from_schema"}, -1},
	{"Give me SQL injection and XSS strings to try on the search field", []string{"data_edge_cases", "?browser_type"}, -1},
	{"Check the signup API rejects 20 invalid emails", []string{"data_edge_cases|data_generate", "http_request", "assert_equals", "?swarm_run"}, 0},

	// Jobs and sub-agents.
	{"Let a sub-agent fix the failing login test and open a pull request", []string{"spawn_agent", "spawn_status"}, -1},
	{"Run the test suite of github.com/acme/shop in the background and tell me when it finishes", []string{"task_submit", "task_status"}, -1},
	{"Show the logs of the job that is running", []string{"task_list|task_status", "task_logs"}, -1},
	{"Cancel the sub-agent that is still working on the refactor", []string{"spawn_cancel", "?spawn_status"}, -1},
	{"Have an agent add tests for the billing module in a worktree and push a branch", []string{"spawn_agent", "spawn_status"}, -1},
	{"Get the coverage report artifacts of job 42", []string{"task_artifacts"}, -1},

	// Files.
	{"Read config.yaml and check the port is 8080", []string{"fs_read", "assert_equals|assert_contains"}, -1},
	{"Back up the fixtures folder, then restore it after the test", []string{"fs_backup", "fs_restore"}, -1},
	{"Find every file under src that mentions TODO", []string{"fs_search"}, -1},
	{"Compare expected.json with actual.json", []string{"fs_diff|object_diff", "?fs_read"}, -1},
	{"Zip the screenshots directory for the bug report", []string{"fs_zip"}, -1},
	{"Watch the build folder and tell me when files change", []string{"fs_watch"}, -1},
	{"Write the test results to results.json", []string{"fs_write"}, -1},
	{"Render the welcome email template with a fake user's name", []string{"template_render|fs_template", "data_generate"}, -1},

	// Reporting and test analysis.
	{"Summarize the test results and list the failures", []string{"report_summary", "report_failures"}, -1},
	{"Which tests are flaky over the last 10 runs, and which should run first", []string{"test_flaky_detect", "test_prioritize"}, -1},
	{"Find the slowest tests in this run", []string{"report_timing"}, -1},
	{"Did performance regress against the baseline build", []string{"performance_regression"}, -1},
	{"Find duplicate tests in the suite and what kinds of tests are missing", []string{"test_deduplicate", "test_coverage_gaps"}, -1},
	{"Why did the checkout tests fail? Group the errors", []string{"report_failures"}, -1},

	// Several users, several things at once.
	{"Check that these 5 URLs all return 200 in parallel", []string{"swarm_run", "http_request", "assert_equals"}, 1},
	{"Run the accessibility audit on the home, pricing and signup pages at the same time", []string{"swarm_run", "browser_navigate", "accessibility_audit"}, 1},
	{"Load the product page as 3 different users at once and make sure each sees the right price", []string{"swarm_run|browser_session_new", "browser_navigate", "assert_text"}, 1},
	{"Check both the postgres and redis connections are healthy", []string{"db_pg_connect", "db_redis_connect"}, 1},
	{"Take screenshots of the home page at mobile, tablet and desktop widths", []string{"browser_navigate", "browser_resize", "browser_screenshot"}, 1},
	{"Measure the response time percentiles of 20 requests to /search", []string{"http_request", "math_stats", "?swarm_run"}, 0},

	// Containers and GitHub.
	{"Start the app with docker compose, wait for it, then check the health endpoint", []string{"compose_up", "http_request", "?assert_equals"}, -1},
	{"Show me the logs of the api container", []string{"docker_logs|compose_logs"}, -1},
	{"Open an issue on GitHub about the broken signup page", []string{"gh_issue_create"}, -1},
	{"Trigger the CI workflow on main and see if the last runs passed", []string{"gh_workflow_run", "gh_workflow_runs"}, -1},
	{"Review pull request 12 and merge it if the checks pass", []string{"gh_diff", "gh_pr_review", "gh_pr_merge"}, -1},
	{"Run the unit tests in a container built from the Dockerfile", []string{"docker_build", "docker_run"}, -1},
	{"Tear down the compose stack and remove its volumes", []string{"compose_down"}, -1},

	// The server itself.
	{"Write a custom tool in TypeScript that converts CSV to JSON", []string{"dynamic_tool_create"}, -1},
	{"Wait two seconds and then take a screenshot", []string{"wait_ms|browser_wait", "browser_screenshot"}, -1},
	// Written after the analyzer met the requests above, to see how it
	// does on requests it was not tuned to (see the intent issue's note).
	{"Visit http://localhost:8080/admin and make sure the users heading is visible", []string{"browser_navigate", "assert_visible"}, -1},
	{"Fill in the contact form with fake data and submit it", []string{"data_generate", "browser_fill_form", "browser_click", "?browser_navigate"}, -1},
	{"Check the product images on the catalog page load without console errors", []string{"browser_navigate", "browser_console_messages"}, -1},
	{"Count the users in the sqlite file test.db", []string{"db_sqlite_open", "db_sqlite_query"}, -1},
	{"Insert three orders into postgres and then query them back", []string{"db_pg_connect", "db_pg_seed", "db_pg_query"}, -1},
	{"Set the key feature:beta to on in redis, then read it back", []string{"db_redis_connect", "db_redis_set", "db_redis_get"}, -1},
	{"List the keys in redis that start with session:", []string{"db_redis_connect", "db_redis_keys"}, -1},
	{"Send a PUT to https://api.example.com/users/1 and check the response contains the new email", []string{"http_request", "assert_contains|assert_equals"}, -1},
	{"Check https://a.example.com, https://b.example.com and https://c.example.com all respond", []string{"swarm_run", "http_request", "?assert_equals"}, 1},
	{"Delete the tmp folder", []string{"fs_remove"}, -1},
	{"Copy fixtures/users.json to backup/users.json", []string{"fs_copy"}, -1},
	{"Unzip the release archive release.zip into dist", []string{"fs_unzip"}, -1},
	{"Make deploy.sh executable", []string{"fs_chmod"}, -1},
	{"Submit a job that runs go test ./... on github.com/acme/api", []string{"task_submit", "task_status"}, -1},
	{"Ask a sub-agent to update the README and open a PR", []string{"spawn_agent", "spawn_status"}, -1},
	{"List the open pull requests on acme/web", []string{"gh_pr_list"}, -1},
	{"Comment on issue 7 that the fix is deployed", []string{"gh_issue_comment"}, -1},
	{"Build the image from ./app and run it with port 8080 published", []string{"docker_build", "docker_run"}, -1},
	{"Which containers are running right now", []string{"docker_ps"}, -1},
	{"Which tests failed in results.xml and why", []string{"report_failures"}, -1},
	{"Go back to the previous page and check the filter is still applied", []string{"browser_navigate_back", "assert_visible|assert_attribute|assert_text"}, -1},
	{"Press Escape and make sure the modal closes", []string{"browser_press_key", "assert_hidden"}, -1},
	{"Snapshot the accessibility tree of the settings page", []string{"browser_navigate", "browser_snapshot"}, -1},
	{"Resize the window to 1280x720 and take a full-page screenshot", []string{"browser_resize", "browser_screenshot"}, -1},
	{"Compare the JSON the API returns with expected.json", []string{"http_request", "fs_read", "object_diff|assert_equals"}, -1},
}

// TestIntentTable holds intent analysis to the bar of the intent issue:
// over the table, recall (needs met) at least 0.9 and precision
// (suggestions right) at least 0.7, both reported; parallelizable as
// judged.
func TestIntentTable(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	a := d.intent
	a.Cache = false
	if len(intentRequests) < 60 {
		t.Fatalf("the table holds %d requests; the bar is judged on at least 60", len(intentRequests))
	}
	var needs, met, suggested, right, parJudged, parRight int
	for _, c := range intentRequests {
		r := a.Text(c.text)
		got := r.SuggestedTools
		ok := map[string]bool{}
		var missed []string
		for _, w := range c.want {
			if name, optional := strings.CutPrefix(w, "?"); optional {
				ok[name] = true
				continue
			}
			alts := strings.Split(w, "|")
			needs++
			hit := false
			for _, alt := range alts {
				ok[alt] = true
				hit = hit || slices.Contains(got, alt)
			}
			if hit {
				met++
			} else {
				missed = append(missed, w)
			}
		}
		var wrong []string
		for _, g := range got {
			suggested++
			if ok[g] {
				right++
			} else {
				wrong = append(wrong, g)
			}
		}
		if c.par != 0 {
			parJudged++
			if r.Parallelizable == (c.par > 0) {
				parRight++
			} else {
				t.Errorf("%q: parallelizable %v, want %v", c.text, r.Parallelizable, c.par > 0)
			}
		}
		if len(missed) > 0 || len(wrong) > 0 {
			t.Logf("%q\n\tmissed %v, beside the point %v (suggested %v)", c.text, missed, wrong, got)
		}
	}
	recall := float64(met) / float64(needs)
	precision := float64(right) / float64(max(1, suggested))
	t.Logf("%d requests: recall %.2f (%d of %d needs), precision %.2f (%d of %d suggestions), parallelizable %d of %d",
		len(intentRequests), recall, met, needs, precision, right, suggested, parRight, parJudged)
	if recall < 0.9 || precision < 0.7 {
		t.Errorf("recall %.2f (bar 0.9), precision %.2f (bar 0.7)", recall, precision)
	}
}
