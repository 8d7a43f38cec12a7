package doctor

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/intent"
	"github.com/barrhawk/barrhawk/internal/intent/learned"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/toolbag"
	"github.com/barrhawk/barrhawk/internal/tools/builtin"
)

// The seed's two examples (doctor-spec.md, Intent Analysis) answer as
// written, field by field.
func TestIntentSeedExamples(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	for _, c := range []struct {
		tool, args, want string
	}{
		{"browser_click", `{"selector":"#submit"}`, `{"primaryDomain":"browser","complexity":"simple","suggestedTools":["browser_click"],"parallelizable":false}`},
		{"test_login_flow", `{"url":"https://app.com"}`, `{"primaryDomain":"browser","secondaryDomains":["utility"],"complexity":"compound",
			"suggestedTools":["browser_launch","browser_navigate","browser_type","browser_click","browser_screenshot","assert_visible","assert_url"],
			"parallelizable":false,"estimatedSteps":7}`},
	} {
		res := d.Call(t.Context(), "intent_analyze", json.RawMessage(`{"tool":"`+c.tool+`","args":`+c.args+`}`))
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		var got, want map[string]any
		if err := json.Unmarshal(res.Value, &got); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal([]byte(c.want), &want)
		for k, v := range want {
			if g, _ := json.Marshal(got[k]); string(g) != mustJSON(v) {
				t.Errorf("%s: %s = %s, the seed says %s", c.tool, k, g, mustJSON(v))
			}
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestIntentAnalysis(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	a := d.intent
	// A known tool is one simple step in its own domain.
	if r := a.Call("hash_text", json.RawMessage(`{"text":"a"}`)); r.Complexity != intent.Simple || r.PrimaryDomain != tool.CategoryUtility || !slices.Equal(r.SuggestedTools, []string{"hash_text"}) {
		t.Errorf("hash_text: %+v", r)
	}
	// Words joined by "and then" are steps.
	if r := a.Text("generate fake users and then check the API returns them"); r.Complexity != intent.Compound || r.SuggestedTools[0] != "data_generate" || !slices.Contains(r.SuggestedTools, "http_request") {
		t.Errorf("compound text: %+v", r)
	}
	// The same work over many items is a swarm.
	if r := a.Text("fetch all 20 URLs and summarize the results"); r.Complexity != intent.Swarm || !r.Parallelizable || !slices.Contains(r.SuggestedTools, "http_request") || r.SuggestedTools[0] != "swarm_run" {
		t.Errorf("swarm text: %+v", r)
	}
	if r := a.Call("swarm_run", json.RawMessage(`{"map":{"tool":"http_request","items":[1,2,3]}}`)); r.Complexity != intent.Swarm || r.EstimatedSteps != 4 || r.PrimaryDomain != tool.CategoryOrchestration {
		t.Errorf("swarm_run: %+v", r)
	}
	// The tool answers the same.
	res := d.Call(t.Context(), "intent_analyze", json.RawMessage(`{"text":"checksum of a string"}`))
	if res.Err != nil || string(res.Value) == "" {
		t.Fatal(res.Err)
	}
	if res := d.Call(t.Context(), "intent_analyze", json.RawMessage(`{}`)); res.Err == nil || res.Err.Code != tool.CodeInvalidArgs {
		t.Errorf("nothing to analyse: %v", res.Err)
	}
}

// The browser's second half has its workflows: mocking, offline, media,
// cookies and web storage, a saved login, ticking a box; a request for
// fake data stays data_generate's, and a tool that writes its own file
// needs no fs_write.
func TestIntentBrowserStateAndNetwork(t *testing.T) {
	t.Parallel()
	wantTools(t, newSearchDoctor(t), []toolsCase{
		{"Mock the orders API to return 503 and check the error banner shows on http://localhost:3000/shop", []string{"browser_route", "browser_navigate", "assert_visible"}, []string{"data_generate", "http_request"}},
		{"Generate 20 fake users with emails", []string{"data_generate"}, []string{"browser_route"}},
		{"Go offline on localhost:5173 and check the app shows 'You are offline'", []string{"browser_navigate", "browser_network_state_set", "assert_text"}, nil},
		{"Open https://acme.io in dark mode and screenshot it", []string{"browser_navigate", "browser_emulate_media", "browser_screenshot"}, nil},
		{"Clear all cookies and reload http://localhost:3000, I should be logged out", []string{"browser_cookie_clear", "browser_reload"}, []string{"browser_cookie_delete"}},
		{"Set localStorage token to abc on localhost:3000 and reload", []string{"browser_localstorage_set", "browser_reload"}, nil},
		{"Tick the terms checkbox on http://localhost:3000/signup and submit", []string{"browser_check", "browser_click"}, nil},
		{"Log in on http://localhost:3000 and save the storage state to auth.json", []string{"browser_fill_form", "browser_click", "browser_storage_state"}, []string{"fs_write"}},
	})
}

// What a request's values are says which tool: a point on the page, a
// script's expression, a regular expression, an HTTP code, a template
// file, a Redis key or key pattern, a pick out of a list.
func TestIntentReadsValues(t *testing.T) {
	t.Parallel()
	wantTools(t, newSearchDoctor(t), []toolsCase{
		{"On localhost:3000/map click at 400,300 and drag from (10,10) to (200,200)", []string{"browser_mouse_click", "browser_mouse_drag"}, []string{"browser_click", "browser_drag"}},
		{"On http://localhost:3000 check window.__APP_VERSION__ is '2.4.1'", []string{"browser_evaluate", "assert_equals"}, []string{"assert_text"}},
		{"Does ^[A-Z]{3}-\\d{4}$ match ABC-1234?", []string{"regex_test"}, nil},
		{"what does a 422 mean again?", []string{"http_status_info"}, nil},
		{"Render templates/env.tpl into .env.test with DB_HOST=localhost", []string{"fs_template"}, []string{"template_render"}},
		{"Render 'Hi {{name}}' with name=Ada", []string{"template_render"}, []string{"fs_template"}},
		{"Clear out every session:* key in local redis", []string{"db_redis_keys", "db_redis_del"}, []string{"db_redis_flush"}},
		{"Pick 3 random accounts out of alice, bob, carol, dave", []string{"random_choice"}, []string{"data_generate"}},
		{"Go forward in the browser on localhost:3000 and check the URL", []string{"browser_navigate_forward"}, nil},
	})
}

// A page's actions are read as a tester writes them: a value picked from
// a select, a radio or else clicked; a basket filled; another user's
// session switched back to; a dialog or a recording the request named
// before and only refers to ("accept it", "stop"); a path of the site
// is a page.
func TestIntentReadsPageActions(t *testing.T) {
	t.Parallel()
	wantTools(t, newSearchDoctor(t), []toolsCase{
		{"On /collect/york-01 pick 'Saturday 10:00' in #slot", []string{"browser_navigate", "browser_select_option"}, []string{"browser_click"}},
		{"Pick 'Dermatology' in the department select on /book", []string{"browser_select_option"}, []string{"browser_click"}},
		{"On /checkout choose the 'Pay later with Klarna' radio", []string{"browser_check"}, []string{"browser_select_option"}},
		{"On /checkout type SW1A key by key into #postcode and pick the first suggestion", []string{"browser_press_sequentially", "browser_click"}, []string{"browser_select_option"}},
		{"Put the 55\" OLED (/p/vb-tv-55oled) in the basket", []string{"browser_navigate", "browser_click"}, nil},
		{"As admin open /admin/orders in a separate session, then switch back to the customer", []string{"browser_session_new", "browser_session_switch"}, nil},
		{"Cancel order 12 from /account/orders/12 (it asks with a confirm() dialog), accept it", []string{"browser_navigate", "browser_click", "browser_handle_dialog"}, []string{"task_cancel"}},
		{"Record a video of the basket: open /basket, pick DHL Express, stop", []string{"browser_start_video", "browser_click", "browser_stop_video"}, nil},
		{"Go to /account, take the session offline, then put it online again", []string{"browser_network_state_set"}, nil},
		{"Then the status should be Approved on /admin/returns/7", []string{"assert_text"}, []string{"gh_pr_review"}},
		{"On /search?q=tent open the first result", []string{"browser_navigate", "browser_click"}, nil},
		{"On the home page accept the cookie banner", []string{"browser_click"}, []string{"browser_handle_dialog"}},
		{"Log in on staging as bob / Passw0rd!", []string{"browser_navigate", "browser_fill_form"}, nil},
		{"After login on /login we should end up on /dashboard, fail the test if not", []string{"assert_url"}, []string{"report_failures"}},
		{"In the back office change the price of RH16 to £4.20 and save", []string{"browser_type", "browser_click"}, nil},
		{"On /ops/orders shift-select orders #3001 to #3010", []string{"browser_keydown", "browser_click", "browser_keyup"}, nil},
		{"On /checkout: card 4242 4242 4242 4242, 12/30, CVC 123, pay", []string{"browser_fill_form", "browser_click"}, nil},
		{"In the back office (/backoffice → Marketing → Vouchers → New) create XMAS25", []string{"browser_navigate", "browser_click"}, nil},
		{"On /register: email 'anna@@x' -> 'Enter a valid email'", []string{"browser_type", "assert_text"}, nil},
		{"Export the test after the checkout run on /basket", []string{"browser_export_test"}, nil},
		{"Start the browser now so the first checkout test doesn't pay the startup time", []string{"browser_launch"}, []string{"browser_click"}},
		{"Set the consent cookie ml_consent=all so the banner stops showing, reload the home page", []string{"browser_cookie_set", "browser_reload"}, nil},
		{"Which browser sessions are open? Then close the browser", []string{"browser_session_list", "browser_close"}, []string{"browser_session_new"}},
		{"What does the open tab keep in localStorage? List every item.", []string{"browser_localstorage_list"}, []string{"browser_localstorage_get"}},
		{"On the size guide click at x=320, y=210", []string{"browser_mouse_click"}, []string{"browser_click"}},
		{"Trace loading /women/knitwear, read LCP via the Performance API and compare with perf/baseline-plp.json", []string{"browser_evaluate", "fs_read", "performance_regression"}, []string{"object_diff"}},
		{"On /login press Tab: focus should land on the password input", []string{"browser_press_key", "browser_evaluate"}, nil},
		{"On /category/pain-relief check every shown price is under 20", []string{"browser_get_elements"}, nil},
	})
}

// Work the server does for the agent, said in the agent's words: rows
// seeded (not a random seed), a tool written where the request speaks of
// tools, a suite rerun as a job, a date worked out, the next server after
// one that dies.
func TestIntentReadsServerWork(t *testing.T) {
	t.Parallel()
	wantTools(t, newSearchDoctor(t), []toolsCase{
		{"Seed 100 fake customers into the customers table of my local Postgres, empty it first", []string{"db_pg_seed"}, []string{"db_pg_query"}},
		{"Generate 25 fake UK addresses, seed 42", []string{"data_generate"}, []string{"db_pg_seed"}},
		{"Snapshot the dynamic tools, then create order_total_check (recompute an order's total from its lines) and run it on order 10432", []string{"worker_snapshot", "dynamic_tool_create", "tool_call"}, nil},
		{"Is there a tool that converts CSV to JSON? If not, write one and try it on data/users.csv", []string{"tool_search", "dynamic_tool_create", "tool_call"}, nil},
		{"Rerun the checkout suite of acme/shop at 1a2b3c4 in our job queue", []string{"task_submit"}, []string{"pool_status"}},
		{"pull postgres:16-alpine, start it as scratch-db on host port 55432, then run pg_isready inside it", []string{"docker_pull", "docker_run", "docker_exec"}, []string{"mcp_register"}},
		{"Make http://localhost:4100/api/recs** return a 500 in the browser and check /p/shirt still shows the 'Add to bag' button", []string{"browser_route", "browser_navigate"}, []string{"http_request"}},
		{"A basket hold started at 2025-03-14T09:58:30Z and lasts 10 minutes. At what exact UTC time should it expire?", []string{"date_utils"}, []string{"timestamp_now"}},
		{"call get_weather on whichever hosted server is alive; if it dies mid-call try the next", []string{"mcp_failover"}, []string{"tool_call"}}, // mcp_failover makes the call itself
		{"Put the inventory MCP server behind the gateway: find how it's configured for Claude Code in this repo, register it the same way, check it's healthy, list its tools and unregister it when done",
			[]string{"mcp_discover", "mcp_register", "mcp_health", "mcp_catalog", "mcp_unregister"}, []string{"spawn_agent"}},
	})
}

// toolsCase is a request, tools its analysis must suggest and tools it
// must not.
type toolsCase struct {
	q          string
	want, fail []string
}

// wantTools checks each case's suggested tools.
func wantTools(t *testing.T, d *Doctor, cases []toolsCase) {
	t.Helper()
	for _, c := range cases {
		got := d.intent.Text(c.q).SuggestedTools
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: want %s in %v", c.q, w, got)
			}
		}
		for _, f := range c.fail {
			if slices.Contains(got, f) {
				t.Errorf("%q: %s is not asked for: %v", c.q, f, got)
			}
		}
	}
}

// A short request is read as a whole as well as step by step: where the
// workflows' tools are not among the search's best for its words, the
// search's best joins them. And what a short request refers to is what
// the request named before ("delete it", "switch to the mobile one",
// "stop it"), in the words a tester types ("local storage", "w/", "+").
func TestIntentReadsShortRequests(t *testing.T) {
	t.Parallel()
	wantTools(t, newSearchDoctor(t), []toolsCase{
		{"put the nightly payload on one line, it goes into an env var: {\"a\":1,\n \"b\":2}", []string{"json_format"}, nil},
		{"fill 'Dear {{name}}, order {{id}} shipped' w/ name=Kim id=77", []string{"template_render"}, []string{"fs_template", "fs_read"}},
		{"which cookies are on shop.example.test right now", []string{"browser_cookie_list"}, []string{"browser_cookie_clear"}},
		{"what does the open tab keep in its local storage", []string{"browser_localstorage_list"}, []string{"browser_navigate", "db_pg_seed"}},
		{"read cartId from session storage, then delete it", []string{"browser_sessionstorage_get", "browser_sessionstorage_delete"}, nil},
		{"what mocks are live in this session? remove them all", []string{"browser_route_list", "browser_unroute"}, []string{"data_generate"}},
		{"which browser sessions exist? switch to the admin one", []string{"browser_session_list", "browser_session_switch"}, []string{"browser_navigate"}},
		{"what is sp_9 printing? stop it, it edits the wrong repo", []string{"spawn_logs", "spawn_cancel"}, nil},
		{"on the zoom canvas: move to 300,200, press, move to 500,260, release", []string{"browser_mouse_move", "browser_mouse_down", "browser_mouse_up"}, []string{"fs_move", "browser_press_key"}},
		{"run `npm run db:seed` in the web service of the e2e stack", []string{"compose_exec"}, []string{"http_request"}},
		{"build ./tools/fake-psp, run it and curl its /health", []string{"docker_build", "docker_run", "http_request"}, []string{"fs_read"}},
		{"apply both updates to the shop pg all or nothing", []string{"db_pg_transaction"}, nil},
		{"move reports/*.xml into archive/ and list archive/", []string{"fs_move", "fs_list"}, []string{"report_summary"}},
		{"we're finished with pg for today, disconnect", []string{"db_pg_disconnect"}, []string{"db_pg_connect"}},
		{"wait 3s then open the orders page on localhost:3000", []string{"wait_ms", "browser_navigate"}, nil},
		{"logs + inspect for the shop-api-1 container", []string{"docker_logs", "docker_inspect"}, nil},
		{"on /cart click Remove, we should be on /cart/empty", []string{"browser_click", "assert_url"}, nil},
		{"the 'Saved!' toast goes away after 3 seconds, check", []string{"assert_hidden"}, nil},
		{"what's in ./config/app.env", []string{"fs_read"}, []string{"fs_list"}},
		{"GET https://api.example.test/v1/items/3", []string{"http_request"}, []string{"db_redis_connect", "db_redis_get"}},
	})
}

// Readings of the ninth session, each in wording of its own: what a step
// refers to, what is no step, and which of two neighbouring tools a
// tester means.
func TestIntentReadsWhatStepsReferTo(t *testing.T) {
	t.Parallel()
	wantTools(t, newSearchDoctor(t), []toolsCase{
		{"halt and delete the qa-mailpit container", []string{"docker_stop", "docker_rm"}, nil},
		{"in redis, check the score of lb:top is 0..100", []string{"assert_range"}, []string{"assert_equals"}},
		{"search 'tent' on /shop and make sure results > 0", []string{"assert_count"}, nil},
		{"compare perf/now.json with perf/baseline.json and flag anything >10% worse", []string{"performance_regression"}, []string{"assert_range"}},
		{"on /signup click #name, hit Tab twice and tell me what has focus", []string{"browser_press_key"}, nil},
		{"ctrl+a in the notes box, then check the counter says 0", []string{"browser_press_key"}, nil},
		{"throw the xss payloads at the contact form on /contact", []string{"data_edge_cases", "browser_fill_form"}, nil},
		{"here are some xss payloads I can paste into the contact form", []string{"data_edge_cases"}, []string{"browser_fill_form"}},
		{"the nightly on acme/web failed: open an issue and re-trigger the workflow", []string{"gh_issue_create", "gh_workflow_run"}, nil},
		{"look at the latest runs of ci.yml in acme/web and re-run it", []string{"gh_workflow_runs", "gh_workflow_run"}, nil},
		{"look at PR 418 on acme/web", []string{"gh_pr_list"}, []string{"http_status_info"}},
		{"untick 'Remember me' on /login and assert it's really off", []string{"browser_uncheck", "assert_checked"}, []string{"assert_visible"}},
		{"is sessionStorage wizardStep equal to '3' on /checkout?", []string{"browser_sessionstorage_get", "assert_equals"}, []string{"assert_text"}},
		{"copy config/app.env to config/app.env.bak and make it 0600", []string{"fs_copy", "fs_chmod"}, nil},
		{"back up config/app.env, then overwrite it with the text below", []string{"fs_backup", "fs_write"}, nil},
		{"flush the redis test db and put back feature:beta = on", []string{"db_redis_flush", "db_redis_set"}, []string{"db_redis_get"}},
		{"dump the unicode edge cases into fixtures/names.json", []string{"data_edge_cases", "fs_write"}, nil},
		{"remove tmp/shots and recreate it empty", []string{"fs_remove", "fs_mkdir"}, nil},
		{"what is sp_12 up to? status and its recent output", []string{"spawn_status", "spawn_logs"}, nil},
		{"the csv_to_json tool isn't listed, find it and run it on data/orders.csv", []string{"tool_search", "tool_call"}, []string{"fs_search", "fs_list"}},
		{"how's the jira mcp server doing?", []string{"mcp_health"}, nil},
		{"call send_sms on whichever sms server is healthy and fail over if it dies", []string{"mcp_health", "mcp_failover"}, []string{"browser_pdf_save"}},
		{"call get_price on every pricing server and tell me how the answers differ", []string{"mcp_aggregate"}, []string{"tool_call"}},
		{"is the newsletter toggle on in /account/preferences?", []string{"assert_checked"}, nil},
		{"click 'Delete list' and OK the are-you-sure confirm", []string{"browser_click", "browser_handle_dialog"}, []string{"assert_text"}},
		{"repo info for acme/web and its workflows", []string{"gh_repo_info", "gh_workflow_list"}, nil},
		{"today's date plus 14 days, for the trial end", []string{"date_utils"}, nil},
		{"render templates/mail.txt into out/mail.txt and diff it with golden/mail.txt", []string{"fs_template", "fs_diff"}, []string{"object_diff"}},
		{"trigger e2e on main in acme/web and show me the run", []string{"gh_workflow_run", "gh_workflow_runs"}, []string{"tool_call"}},
		{"does the search button on /home have an aria-label?", []string{"assert_attribute"}, []string{"assert_text"}},
		{"read data/order.json and schemas/order.schema.json and check the one against the other", []string{"fs_read", "assert_json_schema"}, []string{"assert_equals"}},
		{"read .env.example from acme/web on main and on develop and diff them", []string{"gh_file_read", "string_diff"}, []string{"gh_diff"}},
		{"run redis:7 as qa-cache, give it a few secs, then check the logs say ready", []string{"docker_run", "wait_ms", "docker_logs"}, []string{"docker_inspect", "db_redis_connect"}},
		{"why did last night's e2e run go red? results are in out/junit.xml", []string{"report_failures"}, nil},
		{"last few jobs and how they ended", []string{"task_list"}, nil},
		{"run pg_isready in the qa-pg container", []string{"docker_exec"}, []string{"docker_run"}},
		{"open data/app.db, add a user with a 300-char name, then close", []string{"db_sqlite_close"}, []string{"browser_close", "http_request"}},
		{"hold shift, click rows 2 to 5 on /orders, then let go", []string{"browser_keydown", "browser_keyup"}, nil},
		{"GET /api/orders/7 and the orders row on staging pg, then diff the two", []string{"http_request", "db_pg_query", "object_diff"}, []string{"fs_diff"}},
		{"open /admin/orders and list all the status badges", []string{"browser_get_elements"}, nil},
		{"on /signup pick 'Germany' as country and check the VAT field shows", []string{"browser_select_option"}, []string{"browser_click"}},
		{"open the moderation queue in a second tab and read the first row", []string{"browser_tabs"}, []string{"task_submit", "task_list"}},
		{"compose up, then run the seed script in the api container", []string{"compose_up", "compose_exec"}, []string{"docker_exec"}},
		{"find the old mailhog container and stop it", []string{"docker_ps", "docker_stop"}, nil},
		{"open /settings as the admin (auth/admin.json) and check the audit tab shows", []string{"browser_set_storage_state"}, []string{"browser_storage_state"}},
		{"log in on /login and save the signed-in state to auth/qa.json", []string{"browser_storage_state"}, []string{"browser_set_storage_state"}},
		{"/api/items/xyz should be a 404 not a 500", []string{"http_request", "assert_equals"}, []string{"http_status_info"}},
		{"rm draftId from localStorage, then reload", []string{"browser_localstorage_delete", "browser_reload"}, []string{"browser_localstorage_get"}},
		{"sessionStorage step=2, reload", []string{"browser_sessionstorage_set", "browser_reload"}, []string{"browser_sessionstorage_get"}},
		{"kill the ab_bucket cookie and reload", []string{"browser_cookie_delete"}, []string{"browser_cookie_get"}},
		{"mock **/api/cart* with [] and open /cart, .empty-cart must show", []string{"browser_route", "assert_visible"}, []string{"assert_text"}},
		{"hover .price-info and read the tooltip", []string{"browser_hover", "browser_get_text"}, nil},
		{"show me the jobs in the queue", []string{"task_list"}, []string{"task_submit"}},
		{"is the healthcheck passing on the web-1 container?", []string{"docker_inspect"}, nil},
		{"the min price input should be >= 50 after the drag", []string{"assert_value"}, []string{"assert_count"}},
		{"grab the sid cookie and check it's httpOnly", []string{"browser_cookie_get", "assert_truthy"}, []string{"assert_visible"}},
		{"list everything matching .slot and check there are at least 6", []string{"browser_get_elements", "assert_count"}, nil},
		{"what's the date 30 days from today?", []string{"timestamp_now", "date_utils"}, nil},
		{"https://acme.io/robots.txt should have 'Disallow: /cart'", []string{"http_request", "assert_contains"}, nil},
		{"how many cards on /plp/chairs? should be 24", []string{"browser_navigate", "assert_count"}, []string{"assert_text"}},
		{"delete the sess:tmp:* keys", []string{"db_redis_connect", "db_redis_keys", "db_redis_del"}, []string{"browser_sessionstorage_delete"}},
		{"clear ratelimit:login:42 in redis", []string{"db_redis_del"}, []string{"db_redis_flush"}},
		{"dark mode shot of https://acme.io", []string{"browser_emulate_media", "browser_screenshot"}, nil},
		{"unregister the jira mcp and re-register it at https://mcp.acme.io/jira", []string{"mcp_unregister", "mcp_register"}, nil},
		{"what's the ab_bucket cookie set to? delete it after", []string{"browser_cookie_get", "browser_cookie_delete"}, []string{"browser_click"}},
		{"open /home, click 'Shop', hit back, then forward should land on /shop", []string{"browser_navigate_back", "browser_navigate_forward"}, nil},
		{"tick 'In stock' on /search, then show me which requests went out", []string{"browser_check", "browser_network_requests"}, []string{"http_request"}},
		{"is there something in the toolbox for diffing two screenshots?", []string{"tool_search"}, nil},
		{"whats this actually asking for: 'make sure checkout works on tablets'", []string{"intent_analyze"}, nil},
		{"only show me the docker_* tools for now", []string{"tool_bag"}, nil},
		{"delete all slot-lock:7:* keys in redis", []string{"db_redis_keys", "db_redis_del"}, []string{"db_redis_flush"}},
		{"lock a slot in redis (slot-lock:7:10:15), then book it via the api", []string{"db_redis_set", "http_request"}, []string{"db_redis_get"}},
		{"the fee came back 1.85, assert it is inside 0.50..2.00 per the pricing rule", []string{"assert_range"}, []string{"assert_count"}},
		{"how are the workers doing?", []string{"worker_status"}, []string{"spawn_status"}},
		{"read fixtures/users.json and tell me if it's even valid json", []string{"fs_read", "json_format"}, []string{"json_validator"}},
		{"make this readable, it's all on one line: {\"a\":{\"b\":1}}", []string{"json_format"}, nil},
		{"move the logs to ./archive/2025/ (folder dont exist yet)", []string{"fs_mkdir", "fs_move"}, nil},
		{"clean out tmp/shots and recreate it empty", []string{"fs_remove", "fs_mkdir"}, nil},
		{"uncheck 'Newsletter' in settings and verify it is really off", []string{"browser_uncheck", "assert_checked"}, []string{"browser_check", "assert_equals"}},
		{"save the api's answer to out/actual.json and diff it with fixtures/expected.json", []string{"fs_write", "fs_diff"}, []string{"object_diff"}},
		{"read html lang on https://acme.io via js and check it's en-GB", []string{"browser_evaluate"}, nil},
		{"snapshot the dynamic tools, delete csv_clean_v1 and see if anything complains in events", []string{"dynamic_tool_delete", "events_recent"}, nil},
		{"break this link down for me: https://acme.io/p/1?utm_source=x&ref=y", []string{"url_parse"}, []string{"browser_navigate"}},
		{"dump the orders table from staging pg into out/orders.json", []string{"db_pg_query", "fs_write"}, nil},
		{"call get_slots on every calendar mcp and tell me where they disagree", []string{"mcp_aggregate"}, []string{"tool_call"}},
		{"how many product cards does /plp/sofas show?", []string{"assert_count"}, nil},
		{"check the user:42:prefs hash has theme = 'dark'", []string{"db_redis_connect", "db_redis_hash"}, []string{"hash_text"}},
		{"two front desk agents edit booking 4411: open a second browser session from auth/agent-b.json", []string{"browser_session_new"}, []string{"spawn_agent"}},
		{"check the og:image meta on /p/1 points at cdn.acme.io", []string{"assert_attribute"}, nil},
		{"how's sp_31 going?", []string{"spawn_status"}, nil},
		{"shop-api keeps restarting, figure out why", []string{"docker_inspect", "docker_logs"}, []string{"http_request"}},
		{"replace the old pdf-renderer container with pdf-renderer:2.0 on port 8090", []string{"docker_stop", "docker_rm", "docker_run"}, nil},
		{"what do you think i'm after with 'make sure refunds work on mobile'?", []string{"intent_analyze"}, nil},
		{"curl https://acme.io/api/health and check the body has \"db\":\"ok\"", []string{"http_request", "assert_contains"}, []string{"assert_equals"}},
		{"count orders created today on the qa db, then close the connection", []string{"db_pg_query", "db_pg_disconnect"}, []string{"gh_issue_list"}},
		{"logs and artifacts for task 4410 please", []string{"task_logs", "task_artifacts"}, nil},
		{"expire the trial in one transaction, then open /home as them and #paywall must be visible", []string{"db_pg_transaction", "browser_navigate", "assert_visible"}, []string{"fs_read"}},
		{"PATCH /api/v1/products/TT-4410 to 29.99, then load the PDP and make sure it shows £29.99", []string{"http_request", "browser_navigate", "assert_text"}, nil},
		{"upload fixtures/cv.pdf on the careers form and submit", []string{"browser_file_upload", "browser_click"}, []string{"browser_pdf_save"}},
		{"make a squad of 3 and give them the staging base url", []string{"squad_create", "squad_share"}, []string{"gh_pr_create"}},
		{"load /checkout and check main has data-variant=\"v2\"", []string{"browser_navigate", "assert_attribute"}, []string{"assert_visible"}},
		{"the Upgrade link on the open page should point to /pricing?from=lesson — check its href", []string{"assert_attribute"}, []string{"assert_url"}},
		{"the main image on /products/unicorn must have alt text", []string{"assert_attribute"}, nil},
		{"chmod 755 scripts/reset.sh and run it in the toolbox container", []string{"fs_chmod", "docker_exec"}, []string{"docker_run"}},
		{"unregister the old jira mcp and confirm it's gone", []string{"mcp_unregister", "mcp_list"}, []string{"assert_hidden"}},
		{"rm -rf /tmp/dl-cache and confirm it's actually gone", []string{"fs_remove", "fs_exists"}, nil},
		{"start the qa-pg container, read sql/schema.sql, connect and apply it all-or-nothing", []string{"docker_run", "fs_read", "db_pg_connect", "db_pg_transaction"}, []string{"gh_connect"}},
		{"summary and timing for reports/junit.xml", []string{"report_summary", "report_timing"}, nil},
		{"repo info + branches for acme/web", []string{"gh_repo_info", "gh_branch_list"}, []string{"gh_branch_create"}},
		{"analyse the failures and the timings in reports/junit.xml", []string{"report_failures"}, []string{"intent_analyze"}},
		{"render templates/notes.md.tmpl into out/notes.md and post it as a comment on PR #12 in acme/web", []string{"fs_template", "fs_read", "gh_issue_comment"}, nil},
		{"new branch qa/retry off main in acme/web, commit the change there and open a PR", []string{"gh_branch_create", "gh_file_write", "gh_pr_create"}, []string{"gh_diff"}},
		{"diff the pricing page text between staging.acme.io and acme.io", []string{"browser_get_text", "string_diff"}, []string{"fs_diff"}},
		{"stop the seller-api container but don't remove it", []string{"docker_stop"}, []string{"docker_rm"}},
		{"tick 'Gift wrap' without opening the preview", []string{"browser_check"}, []string{"browser_navigate"}},
		{"I'll paste the payloads in by hand later, just give me the xss list", []string{"data_edge_cases"}, []string{"browser_type", "browser_click"}},
		{"delete fixtures/tmp/session.json and make sure it's gone", []string{"fs_remove", "fs_exists"}, []string{"browser_storage_state", "assert_hidden"}},
		{"is there a .env.ci next to the Makefile? if so show it", []string{"fs_exists", "fs_read"}, nil},
		{"compose logs, ps and inspect the worker container", []string{"compose_logs", "compose_ps", "docker_inspect"}, nil},
		{"bring the stack down with its volumes, up again, then the api logs", []string{"compose_down", "compose_up", "compose_logs"}, []string{"http_request"}},
		{"run redis:7 on 6391, connect, and set flag:beta=on", []string{"docker_run", "db_redis_connect", "db_redis_set"}, []string{"gh_connect"}},
		{"spawn a sub-agent to add tests for order cancellation and tell me what it's been doing", []string{"spawn_agent", "spawn_logs"}, []string{"spawn_cancel"}},
		{"open the returns page https://shop.example.test/returns in a new tab", []string{"browser_tabs"}, []string{"browser_navigate"}},
		{"Give it a go on staging: search 'kettle', and check results show up", []string{"browser_type"}, []string{"fs_search"}},
		{"GET /api/orders/5 — total should be a number between 1 and 900", []string{"http_request", "assert_range"}, []string{"assert_text"}},
		{"is the Add to basket button visible on /p/kettle-2?", []string{"assert_visible"}, []string{"browser_click"}},
		{"which hosted server should take 'send an sms'? then call it with failover", []string{"mcp_route", "mcp_failover"}, []string{"mcp_list", "tool_call"}},
		{"trigger the smoke workflow on main in acme/shop, no idea what the file is called", []string{"gh_workflow_list", "gh_workflow_run"}, nil},
		{"make every request to **/api/stock* answer 503 and open /p/kettle-2", []string{"browser_route", "browser_navigate"}, []string{"http_request"}},
		{"here's the JWT: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI3In0.sig, is it expired?", []string{"timestamp_now", "assert_range"}, nil},
		{"decode aGVsbG86d29ybGQxMjM= please", []string{"base64_encode"}, nil},
		{"what's in localStorage basketDraft on this tab?", []string{"browser_localstorage_get"}, []string{"browser_localstorage_list"}},
		{"old: 'Ships in 2 days.' new: 'Ships in 3 days.' what changed?", []string{"string_diff"}, nil},
		{"open results/runs.sqlite and give me the 5 slowest tests, then close it", []string{"db_sqlite_open", "db_sqlite_query", "db_sqlite_close"}, []string{"report_timing"}},
		{"File a bug on acme/shop: 'Cart badge stuck at 0'. Steps: open /cart, add a mug, reload", []string{"gh_issue_create"}, []string{"browser_navigate", "browser_reload"}},
		{"queue the api suite on main and when it's done list its artifacts", []string{"task_submit", "task_artifacts"}, nil},
		{"stub GET /api/cart* to return [] and check the basket page says 'Your basket is empty'", []string{"browser_route", "assert_text"}, []string{"assert_equals"}},
		{"clear localStorage and reload - does the welcome banner show?", []string{"browser_localstorage_clear", "browser_reload", "assert_visible"}, nil},
	})
}

// Steps come in calling order, each with the words it does and the
// arguments the request gives, under the tool's own argument names.
func TestIntentStepsAndHints(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	step := func(r intent.Analysis, name string) intent.Step {
		t.Helper()
		for _, s := range r.Steps {
			if s.Tool == name {
				return s
			}
		}
		t.Fatalf("no %s step in %+v", name, r.Steps)
		return intent.Step{}
	}
	r := d.intent.Text("Log in to the staging app as admin and check the dashboard shows 3 widgets")
	var order []string // the steps the words give; the learned model's are marked likely
	for _, s := range r.Steps {
		if s.Likely == 0 {
			order = append(order, s.Tool)
		} else if s.Words != "" || s.Likely <= learned.Threshold || s.Likely > 1 {
			t.Errorf("a step the model adds has no words and a probability over %v: %+v", learned.Threshold, s)
		}
	}
	if !slices.Equal(order, []string{"browser_navigate", "browser_fill_form", "browser_click", "assert_count"}) || r.Parallelizable || r.Complexity != intent.Compound {
		t.Errorf("login then check: %v %+v", order, r)
	}
	if s := step(r, "assert_count"); s.Words != "check the dashboard shows 3 widgets" || s.Args["equals"] != 3 {
		t.Errorf("assert_count: %+v", s)
	}

	r = d.intent.Text("Open https://shop.example.com/cart, click the 'Check out' button and make sure the title is 'Payment'")
	if s := step(r, "browser_navigate"); s.Args["url"] != "https://shop.example.com/cart" {
		t.Errorf("navigate: %+v", s)
	}
	if s := step(r, "browser_click"); s.Args["selector"] != `role=button[name="Check out"i]` {
		t.Errorf("click: %+v", s)
	}
	if s := step(r, "assert_title"); s.Args["expected"] != "Payment" {
		t.Errorf("title: %+v", s)
	}

	// Several sizes: one step over each, independent, so a swarm.
	r = d.intent.Text("Take a screenshot of the pricing page at mobile and 1920x1080 sizes")
	if s := step(r, "browser_resize"); len(s.Each) != 2 || s.Each[1]["width"] != 1920 || s.Each[1]["height"] != 1080 || !r.Parallelizable || r.Complexity != intent.Swarm {
		t.Errorf("sizes: %+v %+v", s, r)
	}
	// A count with its bound, a key, a file, a pull request's number.
	for text, want := range map[string][2]any{
		"type 'laptop' in the search box and check at least 5 results are listed": {"assert_count", map[string]any{"min": 5}},
		"Copy fixtures/users.json to backup/users.json":                           {"fs_copy", map[string]any{"source": "fixtures/users.json", "destination": "backup/users.json"}},
		"Set the key feature:beta in redis":                                       {"db_redis_set", map[string]any{"key": "feature:beta"}},
		"Merge pull request 12 on acme/web":                                       {"gh_pr_merge", map[string]any{"pullNumber": 12, "owner": "acme", "repo": "web"}},
		"Call POST /api/orders and assert it returns 201":                         {"assert_equals", map[string]any{"expected": 201}},
		"GET http://localhost:8080/health must be 200":                            {"assert_equals", map[string]any{"expected": 200}},
		"Merge #497 on acme/web":                                                  {"gh_pr_merge", map[string]any{"pullNumber": 497, "owner": "acme", "repo": "web"}},
		"Wait 3 seconds":                                                          {"wait_ms", map[string]any{"ms": 3000}},
		"Open the invoice page and save it as invoice-42.pdf":                     {"browser_pdf_save", map[string]any{"path": "invoice-42.pdf"}},
		"stop and remove the qa-mailpit container":                                {"docker_rm", map[string]any{"container": "qa-mailpit"}},
		"show me the logs of the api container":                                   {"docker_logs", map[string]any{"container": "api"}},
		"stop bb-old-pg":                                                          {"docker_stop", map[string]any{"container": "bb-old-pg"}},
		"run pg_isready in the qa-pg container":                                   {"docker_exec", map[string]any{"container": "qa-pg"}},
		"GET /api/x should be a 404 not a 500":                                    {"assert_equals", map[string]any{"expected": 404}},
		"at 375 px wide, screenshot the desktop navigation":                       {"browser_resize", map[string]any{"width": 375, "height": 844}},
	} {
		r := d.intent.Text(text)
		if s := step(r, want[0].(string)); mustJSON(s.Args) != mustJSON(want[1]) {
			t.Errorf("%q: %s args %s, want %s", text, s.Tool, mustJSON(s.Args), mustJSON(want[1]))
		}
	}
	// Hints a tool does not take are not given: assert_count has no url.
	r = d.intent.Text("open https://x.example.com and check 4 rows are shown")
	if s := step(r, "assert_count"); s.Args["url"] != nil || s.Args["equals"] != 4 {
		t.Errorf("assert_count: %+v", s)
	}
}

// A step no workflow knows goes to the tool search, which holds every
// tool: a dynamic tool the agent wrote is found by what it does.
func TestIntentFindsDynamicTools(t *testing.T) {
	t.Parallel()
	csv := tool.Tool{Def: tool.Def{Name: "csv_to_json", Group: DynamicGroup, Category: tool.CategoryUtility,
		Description: "Convert CSV text into JSON rows, one object per line", Input: schema.Object(schema.String("csv", "The CSV text"))},
		Run: func(context.Context, *tool.Call) (any, error) { return nil, nil }}
	d := newDoctorWith(t, searchConfig(t), append(builtin.Tools(), csv))
	r := d.intent.Text("Convert the orders export from CSV to JSON rows, then write it to orders.json")
	if !slices.Equal(r.SuggestedTools, []string{"csv_to_json", "fs_write"}) {
		t.Errorf("a dynamic tool by what it does: %v", r.SuggestedTools)
	}
}

// tool_search answers a task of several steps step by step (its steps
// in calling order, each step's tool among the results); tool_bag
// loads the tools a task takes.
func TestToolSearchAndBagReadIntent(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	r := d.Call(t.Context(), "tool_search", json.RawMessage(`{"query":"go to http://localhost:3000/login, sign in as admin, then check the dashboard shows 3 widgets"}`))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var out struct {
		Results []struct{ Name string } `json:"results"`
		Steps   []intent.Step           `json:"steps"`
	}
	json.Unmarshal(r.Value, &out)
	var names []string
	for _, x := range out.Results {
		names = append(names, x.Name)
	}
	var stepTools []string
	for _, st := range out.Steps {
		if st.Likely == 0 { // the learned model's additions aside (marked likely)
			stepTools = append(stepTools, st.Tool)
		}
	}
	if !slices.Equal(stepTools, []string{"browser_navigate", "browser_fill_form", "browser_click", "assert_count"}) || out.Steps[0].Args["url"] != "http://localhost:3000/login" {
		t.Errorf("a task of steps: %s", r.Value)
	}
	for _, st := range stepTools {
		if !slices.Contains(names, st) {
			t.Errorf("the step's tool %s is not among the results %v", st, names)
		}
	}
	// One step: no steps, as before.
	if r := d.Call(t.Context(), "tool_search", json.RawMessage(`{"query":"checksum of a string"}`)); r.Err != nil || strings.Contains(string(r.Value), `"steps"`) {
		t.Errorf("a one-step query: %s %v", r.Value, r.Err)
	}

	bag, err := toolbag.New(d.Profiles(), "core", d.reg.List())
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	ctx := toolbag.With(t.Context(), &toolbag.Session{Bag: bag, Changed: func() { changed++ }})
	r = d.Call(ctx, "tool_bag", json.RawMessage(`{"action":"load","task":"compare the users table in postgres with the redis cache"}`))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, n := range []string{"db_pg_connect", "db_pg_query", "db_redis_connect", "db_redis_get", "object_diff"} {
		if !bag.Shows(n, false) {
			t.Errorf("tool_bag task did not load %s: %s", n, r.Value)
		}
	}
	if changed != 1 || !strings.Contains(string(r.Value), `"suggested"`) {
		t.Errorf("tool_bag task: changed %d, %s", changed, r.Value)
	}
	r = d.Call(ctx, "tool_bag", json.RawMessage(`{"action":"load","task":"zzz qqq"}`))
	if r.Err == nil || r.Err.Code != tool.CodeInvalidArgs || !strings.Contains(r.Err.Message, "no tool found") {
		t.Errorf("a task nothing does: %v", r.Err)
	}
}

func BenchmarkIntentCached(b *testing.B) {
	d := newSearchDoctor(b)
	args := json.RawMessage(`{"url":"https://app.com"}`)
	d.intent.Call("test_login_flow", args)
	for b.Loop() {
		d.intent.Call("test_login_flow", args)
	}
}

// benchRequest is a 300-character request of several steps.
const benchRequest = "Log in to https://staging.example.com/login as admin, open the reports page, choose 'Last 30 days' from the range dropdown, " +
	"check the chart shows 30 bars and the total is '1,024', then take a screenshot at mobile and desktop sizes and save the page as report.pdf"

func BenchmarkIntentUncached(b *testing.B) {
	d := newSearchDoctor(b)
	d.intent.Cache = false
	d.intent.Text(benchRequest)
	b.ReportMetric(float64(len(benchRequest)), "chars")
	for b.Loop() {
		d.intent.Text(benchRequest)
	}
}

// benchShortRequest is a request of one step, which the search also
// reads whole.
const benchShortRequest = "which keys starting with user: are in the cache right now"

func BenchmarkIntentUncachedOneStep(b *testing.B) {
	d := newSearchDoctor(b)
	d.intent.Cache = false
	d.intent.Text(benchShortRequest)
	for b.Loop() {
		d.intent.Text(benchShortRequest)
	}
}

func BenchmarkIntentCachedText(b *testing.B) {
	d := newSearchDoctor(b)
	d.intent.Text(benchRequest)
	for b.Loop() {
		d.intent.Text(benchRequest)
	}
}
