package intent

import (
	"strings"

	"github.com/barrhawk/barrhawk/internal/search"
)

// What a QA engineer knows: the words that say what a step is about, and
// the tools each kind of step takes, in the order they are called. Rules
// are tried in the order of this file (set-up, actions, observations,
// checks, tear-down), so a step's tools come out in calling order.

// domain is what a step is about; a set of bits.
type domain uint32

const (
	web domain = 1 << iota
	api
	pg
	sqlite
	redis
	db // a database, which one unsaid
	files
	job
	agent
	docker
	compose
	github
	report
	// value: a step about no system of its own, whose checks are of
	// values ("decode the JWT and check the name in it is Ada").
	value
	// The server's own: hosted MCP servers, the Igor workers, the
	// agent's dynamic tools and their snapshots, squads.
	gateway
	workers
	dynamic
	squads
)

// anyDomain is a rule's domain when it applies to a step about anything,
// the server's own included.
const anyDomain = ^domain(0)

// owners take a step whole: a step about a sub-agent, a job, GitHub,
// containers or the server's own is not also a browser, API or file step
// because it names a page or a file ("open an issue about the broken
// signup page", "host the MCP server at https://mcp.acme.dev").
const owners = agent | job | github | docker | compose | gateway | workers | dynamic | squads

// domainWords say what a step is about.
var domainWords = []struct {
	d     domain
	words []string
}{
	{web, triggers(`<checkstate> <selector> <named> page site website browser button link click tap screenshot tab form dashboard toggle checkout cart dropdown
		field box input textbox search+box modal tooltip toast snackbar spinner placeholder menu widget viewport mobile desktop tablet title banner icon image badge dialog popup
		log+in sign+in sign+up login logout log+into sign+into <creds> checkbox untick tick heading scroll hover drag pdf trace tracing console
		accessibility a11y wcag picture avatar product price upload javascript <js> card cookie cookies localstorage sessionstorage
		offline dark+mode dark+theme storage+state new+session browser+session ticked unticked opt+in storefront homepage home+page top+nav navbar basket wishlist wish+list the+pdp a+pdp its+pdp the+plp shop fresh+session isolated+session separate+session own+session second+session another+session <asession>`)},
	{api, triggers(`api endpoint endpoints rest+api rest+apis rest+endpoint rest+call graphql curl wget =response =responses =respond =responds =responded <method> <status> status+code
		header headers request requests <api>`)},
	{pg, triggers(`postgres postgresql pg psql`)},
	{sqlite, triggers(`sqlite sqlite3 <dbfile>`)},
	{redis, triggers(`redis cache+key cache+keys cached+key <keyglob>`)},
	{db, triggers(`database db table tables row rows sql migration migrations query queries column columns seed transaction <sql> <runsql>` + rowLookup)},
	{files, triggers(`file files folder folders directory directories dir <file> fixtures`)},
	{job, triggers(`job jobs requeue resubmit background queue worktree worktrees isolated+checkout clean+checkout fresh+checkout clean+worktree`)},
	{agent, triggers(`agent agents sub+agent subagent claude gemini codex delegate <spawn> spawn`)},
	{docker, triggers(`keeps+restarting keep+restarting docker container containers dockerfile named+volume create+a+network create+a+volume make+a+network make+a+volume a+new+network a+new+volume image+build image+from build+the+image build+an+image <image> <buildfrom> restart+loop crash+loop crashloop <instance> =exec`)},
	{compose, triggers(`compose =stack =stacks <service>`)}, // not "voucher stacking"
	{github, triggers(`github <repo> <ghtoken> pull+request pr =issue =issues open+a+bug file+a+bug raise+a+bug log+a+bug workflow workflows actions+pipelines ci branch branches repo repository merge+it merge+the+pr merge+pr request+changes =commit`)},
	{gateway, triggers(`mcp hosted upstream upstreams gateway proxied <mcpurl> <toolserver> every+server every+remaining+server on+every+server each+server all+servers`)},
	{workers, triggers(`igor igors worker workers`)},
	{dynamic, triggers(`dynamic+tool dynamic+tools tool+snapshot tool+snapshots`)},
	{squads, triggers(`squad squads shared+context`)},
	{report, triggers(`test+result test+results failure failures flaky slowest suite regress regression duplicate coverage`)},
}

// checkWords make a step a check.
var checkWords = triggers(checkWordList)

const checkWordList = `check checks verify assert ensure =confirm =confirms make+sure expect should must =shouldn =mustn had+better better+be see sees appear appears shown
	visible displayed say says gone disappear disappears hidden listed rejects reject end+up lands redirected matches match
	healthy has+to have+to needs+to <yesno> control+that control+if` + failIfNot

// rule: a step about in (any step when 0) holding one of when (and one of
// and, when set), none of unless, takes tools. Within a group only the
// first rule that applies counts.
type rule struct {
	in     domain
	when   []string
	and    []string
	unless []string
	group  string
	tools  []string
}

// r builds a rule from space-separated lists; "a+b" is the phrase "a b".
func r(in domain, when, tools string) rule {
	return rule{in: in, when: triggers(when), tools: strings.Fields(tools)}
}

func (x rule) but(unless string) rule { x.unless = triggers(unless); return x }
func (x rule) with(and string) rule   { x.and = triggers(and); return x }
func (x rule) checks() rule {
	x.and, x.unless = checkWords, append(x.unless, audits...)
	return x
}

// audits are checks a tool makes whole (accessibility_audit, the
// console's errors, the network's requests).
var audits = triggers(a11yWords + ` console javascript+error network`)

// pageLoads say a page is loading: the requests then are the page's.
var pageLoads = triggers(pageLoadWords)

const pageLoadWords = ` load loads loaded loading`

// tryItWords run a tool just written or named.
const tryItWords = `try+it try+out run+it call+it test+it use+it`

// sequentially type a key at a time.
const sequentially = ` slowly key+by+key character+by+character one+key+at+a+time type+slowly one+character+at+a+time char+by+char letter+by+letter like+a+real+person every+keystroke each+keystroke`

// stillIn ask whether a session is still logged in, not to log in.
const stillIn = ` still+signed+in still+logged+in is+signed+in is+logged+in stays+logged+in stay+logged+in stays+signed+in remain+logged+in`

// loggedIn say a session is logged in already ("(logged in as the QA
// lead)", "I'm logged into admin"): a state, not a step.
const loggedIn = ` <loggedin>`

// pageMeasures are a page's measures a script reads (web vitals, the
// Performance API); perfWords speak of a page's performance.
const (
	pageMeasures = `lcp ttfb cls fcp tti inp performance+api performanceobserver navigation+timing loadeventend performance+mark web+vitals core+web+vitals domcontentloaded`
	perfWords    = ` lcp ttfb cls fcp tti inp perf performance load+time bundle+size bundle baseline regress regression regressed`
)

// firstItem is an item of a list on the page, opened by a click: "open
// the first result", "quick view on the first card".
const firstItem = ` the+first first+result first+product first+card first+item first+row first+one second+result quick+view the+result`

// sessionsOpen ask which browser sessions are open.
const sessionsOpen = ` which+browser+sessions which+sessions sessions+are+open are+open+now list+the+sessions list+sessions list+the+browser+sessions`

// storedAll ask for all a storage holds, not one key.
const storedAll = `list show+me+localstorage show+localstorage show+me+sessionstorage show+sessionstorage every+item all+items everything what+s+in what+in what+is+in what+does all+entries every+entry all+the+keys every+key which+keys what+keys keys+does =keeping persists`

// modifierKeys are the keys held while another is pressed or a click
// made.
const modifierKeys = `shift ctrl control alt option meta cmd command`

// failIfNot make a step a check: the test fails if what it says is not
// so ("fail the test if not", "otherwise the test should fail").
const failIfNot = ` fail+the+test fail+the+step fail+the+check fail+if fail+otherwise test+should+fail otherwise+fail`

// stateSaid say what a thing's state is ("the status says Cancelled",
// "should show Subscribed"): its words are the state, not a step.
const stateSaid = `status+say status+says status+show status+shows status+is status+should status+must should+say should+show should+be must+say must+show must+be`

// tableWords name a table's parts.
var tableWords = triggers(`table tables column columns row rows`)

// urlParts ask for a URL's parts, not its page.
const urlParts = ` its+parts its+bits which+part what+part into+parts split+this split+it in+parts break+down break+into break+it break+this+url break+the+url break+this+link break+the+link query+params query+string components pathname hostname`

// editWords change a file.
const editWords = `update edit change set write fix bump modify`

// typeWords say a value's type.
var typeWords = `a+string an+integer =integer a+number a+boolean an+array an+object a+list`

// disconnect ends a connection (newClause marks "close the connection").
const disconnect = `disconnect <disconnect>`

// a11yWords ask for an accessibility audit; loginWords for logging in.
const (
	a11yWords  = `accessibility a11y wcag axe alt+text screen+reader contrast`
	loginWords = `log+in logg+in sign+in login log+into sign+into <creds>`
)

func (x rule) first(group string) rule { x.group = group; return x }

var rules = []rule{
	// Set-up.
	r(0, `<plan>`, `plan_read`),
	r(web, `trace tracing`, `browser_start_tracing`),
	r(web, `session sessions different+user separate+user`, `browser_session_new browser_session_switch`).with(`switch back other first second admin customer user+a user+b two+user two+users`),
	r(web, `session sessions different+user separate+user`, `browser_session_new`).but(`this+session this+browser+session current+session current+browser+session the+default+session switch+back switch+to back+to export =close spec` + sessionsOpen),
	r(web, sessionsOpen, `browser_session_list`),
	r(anyDomain, `start+the+browser launch+the+browser start+a+browser launch+a+browser launch+browser start+browser warm+up open+a+browser start+a+chromium start+chromium launch+chromium start+chrome`, `browser_launch`),
	r(0, `=invalid injection xss malicious nasty edge+case`, `data_edge_cases`).first("data"),
	r(0, `random randomly`, `random_choice`).with(`pick choose select out+of among from+these`).first("data"),
	r(0, `generate generated fake random dummy mock synthetic example examples make produce satisfy satisfies conform =payloads`, `data_from_schema`).with(`schema`).but(`=validate =validates =validated =validation against must should`).first("data"),
	r(0, `generate generated fake random dummy mock synthetic`, `data_generate`).but(`network xhr backend stub stubbed intercept return returns respond responds <status> locator route routes =mocked =mocks`).first("data"),
	r(web, `locator locators`, `browser_generate_locator`),
	r(pg, `connect connection connections healthy reachable`, `db_pg_connect`).but(disconnect + ` already+connected already+open =existing alias connection+alias`),
	r(redis, `connect connection connections healthy reachable`, `db_redis_connect`).but(disconnect + ` already+connected already+open =existing alias connection+alias`),
	r(web, `open go visit navigate load loading browse <link> page pages site website`, `browser_navigate`).but(`pdf <pdf> go+back navigate+back go+forward forward full+page <method> endpoint reload refresh go+away let+go are+open` + alreadyOpen + urlParts + firstItem),
	r(web, `iphone ipad pixel galaxy android+phone emulate emulating emulation device`, `browser_session_new`).but(`dark+mode color+scheme colour+scheme prefers media reduced+motion viewport`),
	r(web, `viewport`, `browser_resize`).with(`<size>`).first("size"), // "the viewport to 390 x 844, like an iPhone"
	r(web, `mobile desktop tablet viewport width widths responsive <size> px+wide wide`, `browser_resize`).but(`device iphone ipad pixel galaxy <numbers>`).first("size"),
	r(web, `size siz`, `browser_resize`).with(`<size> window screen viewport browser`).first("size"), // not a shirt's size
	// The session's network and media, before the page loads.
	r(0, `mock mocks route routes intercept intercepts stub stubs`, `browser_route_list`).with(`which what+mocks route+list list+the list+all list+active list+my list+them active registered still+active are+active set+up i+set`).but(`unmock unroute remove drop`).first("route"),
	r(web|api, `in+the+browser`, `browser_route`).with(`return returns answer answers respond <status>`).first("route"),                                                      // "make /api/x answer 500 in the browser"
	r(web|api, `<urlglob>`, `browser_route`).with(`return returns answer answers respond fail <status>`).but(`unroute stop+mocking`).first("route"),                          // "make every call to **/api/x* return a 500"
	r(value|web|api, `mock mocks stub stubs route routes`, `browser_unroute`).with(`remove drop delete clear`).but(`data user users record records row rows`).first("route"), // "remove the flight search mock"
	r(web|api, `mock mocked stub stubbed intercept fake`, `browser_route`).with(`api endpoint request requests response responses network fetch xhr call calls <status> <api> backend`).first("route"),
	r(0, `unmock unroute remove+the+mock remove+mock remove+the+mocks drop+the+mock stop+mocking remove+the+route`, `browser_unroute`),
	r(web, `offline airplane no+network no+internet online+again back+online go+online cut+the+network cut+the+connection drop+the+connection drop+the+network lose+connection lost+connection`, `browser_network_state_set`),
	r(web, `dark+mode dark+theme light+mode color+scheme colour+scheme print+media print+stylesheet print+styles reduced+motion forced+colors high+contrast`, `browser_emulate_media`),
	// Storage: cookies, web storage, a saved login.
	r(web, `storage+state saved+login logged+in+state auth+state signed+in+state login+state`, `browser_set_storage_state`).but(`=save =store =write =export save+to save+it keep persist capture dump snapshot give+me get+me show+me hand+me`).first("state"),
	r(web, `storage+state saved+login logged+in+state auth+state signed+in+state login+state`, `browser_storage_state`).first("state"),
	r(web, `cookie cookies`, `browser_cookie_clear`).with(`clear wipe purge empty flush reset nuke delete+all delete+every remove+all remove+every drop+all`).but(`one only just`).first("cookie"),
	r(web, `cookie cookies`, `browser_cookie_set`).with(`set setting add inject write plant`).but(`which what does+the gets+set get+set is+set was+set be+set been+set cookies+set set+for set+by set+on`).first("cookie"),
	r(web, `cookie cookies`, `browser_cookie_delete`).with(`delete remove expire drop =rm =kill`).but(`what+cookies which+cookies`).first("cookie"),
	r(web, `cookies`, `browser_cookie_list`).with(`list =cookies`).but(`=cookie`).first("cookie"),
	r(web, `cookie`, `browser_cookie_get`).first("cookie"),
	r(web, `cookies`, `browser_cookie_list`).first("cookie"),
	r(web, `localstorage`, `browser_localstorage_clear`).with(`clear wipe empty reset`).but(`empty+state`).first("local"),
	r(web, `localstorage`, `browser_localstorage_set`).with(`set setting put write store seed <setting> <attrvalue>`).but(`=stored what which list everything+it it+puts`).first("local"),
	r(web, `localstorage`, `browser_localstorage_delete`).with(`delete remove drop take+out get+rid =rm`).first("local"),
	r(web, `localstorage`, `browser_localstorage_list`).with(storedAll).but(`<quoted> <key> <ident> =under`).first("local"),
	r(web, `localstorage`, `browser_localstorage_get`).first("local"),
	r(web, `sessionstorage`, `browser_sessionstorage_clear`).with(`clear wipe empty`).but(`empty+state`).first("sessionstore"),
	r(web, `sessionstorage`, `browser_sessionstorage_set`).with(`set setting put write store seed <setting> <attrvalue>`).but(`=stored what which`).first("sessionstore"),
	r(web, `sessionstorage`, `browser_sessionstorage_delete`).with(`delete remove drop take+out out+of get+rid =rm`).first("sessionstore"),
	r(web, `sessionstorage`, `browser_sessionstorage_list`).with(storedAll).but(`<quoted> <key> <ident> =under`).first("sessionstore"),
	r(web, `sessionstorage`, `browser_sessionstorage_get`).first("sessionstore"),

	// Actions in the browser.
	r(web, loginWords+` authenticate`, `browser_navigate browser_fill_form browser_click`).but(`<method> <api> api endpoint login+page sign+in+page login+form saved+login storage+state without+typing login+test login+tests login+spec login+specs own+login my+login` + stillIn + loggedIn),
	r(web, `sign+up register registration`, `browser_navigate browser_fill_form browser_click`),
	r(web, `checkout`, `browser_navigate browser_click browser_fill_form`).with(`flow go+through complete`),
	// Buying something is the whole flow: the product, the cart, the form.
	r(web, `place+an+order place+the+order place+order places+an+order buy purchase`, `browser_navigate browser_click browser_fill_form`),
	// A code applied at the cart is typed into its box and applied.
	r(web, `promo coupon voucher discount+code gift+card`, `browser_type browser_click`).with(`apply use enter redeem add type`),
	r(web, `apply use enter redeem try promo coupon voucher code`, `browser_type browser_click`).with(`<promo>`),
	r(web, `submit submitt`, `browser_fill_form browser_click`).but(`empty blank without`).first("submit"),
	r(web, `submit submitt`, `browser_click`).first("submit"),
	r(web, `=search`, `browser_type`).with(`<quoted>`),
	r(web, `<searchverb>`, `browser_type`).but(`<quoted> tool tools file files log logs repo issues toolbox accessibility+tree`), // "open /hotels, search Paris"
	r(web, `type enter fill+in input`, `browser_type`).but(`press+enter hit+enter form` + sequentially),
	// Payloads thrown at a form are typed into its fields and sent.
	r(web, `try throw paste put run send post fire`, `browser_fill_form`).with(`form`).but(`type enter fill+in i+can i+could`),
	r(web, `try throw paste put`, `browser_type`).with(`box field input textbox payload payloads <selector>`).but(`type enter fill+in form`),
	r(web, `<cardnum> cvc cvv`, `browser_fill_form`), // a card's number, expiry and CVC
	r(web, `<uistep>`, `browser_click`),
	r(web, `<inputgives>`, `browser_type assert_text`),
	// A field's value changed or written on a page: typed ("change the
	// price to £69 and save", "write the gift message 'Happy birthday'").
	r(web, `change set update edit write fill`, `browser_type`).with(`price quantity qty address name email message phone amount title description comment review`).
		but(`type enter fill+in input localstorage sessionstorage cookie cookies storage+state viewport window size dark+mode key flag form fields <selectel> dropdown select`),
	r(web, `fill`, `browser_fill_form`).with(`form shipping billing address details fields registration signup password username`),
	r(0, `press+enter hit+enter press+tab hit+tab shift+tab press+escape hit+escape keyboard key+press =escape =esc arrowup arrowdown arrowleft arrowright pageup pagedown ctrl+a ctrl+c ctrl+v ctrl+z cmd+a cmd+c cmd+v backspace`, `browser_press_key`),
	r(web, `click tap`, `browser_mouse_click`).with(`<point>`),
	r(web, `click tap press add hit`, `browser_click`).but(`press+enter hit+enter press+tab hit+tab press+escape hit+escape hit+back press+back <point> ` + stateSaid),
	// What a user does on a page with a button: a click.
	r(web, `approve reject cancel decline delete remove apply pay reserve archive subscribe unsubscribe like =save =import`, `browser_click`).
		but(`cookie cookies localstorage sessionstorage storage+state mock mocked route routes click tap press screenshot pdf <pdf> trace video spec <spec> har <file> session ` + stateSaid),
	r(web, `open expand collapse toggle`, `browser_click`).with(`modal menu dropdown drawer accordion panel popover sidebar hamburger details` + firstItem).but(`that+opens which+opens it+opens`),
	r(web, `=accept`, `browser_click`).with(`banner cookies cookie consent terms`).but(`dialog =alert =prompt popup`),
	// Picking a value: from a select, a radio, else what is clicked (a
	// suggestion, a swatch, a size).
	r(web, `choose pick`, `browser_select_option`).with(`dropdown option select menu from <selectel> <inselector>`).first("pick"),
	r(web, `select`, `browser_select_option`).with(`dropdown option menu from <selectel> <inselector>`).first("pick"),
	// A select named, or a field that is one, given its value: "sort by
	// price (select#sort)", "reason 'Too small'".
	r(web, `<selectel> sort+by`, `browser_select_option`).but(checkWordList).first("pick"),
	r(web, `reason interval frequency country department currency`, `browser_select_option`).with(`<quoted>`).but(checkWordList).first("pick"),
	r(web, `choose pick select`, `browser_check`).with(`radio`).but(stateSaid + ` =selected`).first("pick"),
	r(web, `choose pick select`, `browser_click`).but(`random randomly pick+up picks+up tool tools =selected ` + stateSaid).first("pick"),
	r(web, `put`, `browser_click`).with(`cart basket bag trolley`).but(`offline online`),
	r(web, `switch+back switch+to back+as back+to+the`, `browser_session_switch`).with(`user customer admin shopper session buyer seller <asession>`).but(`tab tabs mode theme frame iframe`),
	r(web, `close+the+browser close+browser quit+the+browser shut+the+browser`, `browser_close`),
	r(web, `upload attach type+file file+input`, `browser_file_upload`).but(`directory folder chown chmod`),
	r(web, `untick uncheck uncheck+the`, `browser_uncheck`).first("tick"),
	r(web, `tick checkbox checkboxes`, `browser_check`).but(`untick uncheck`).first("tick"),
	r(web, sequentially, `browser_press_sequentially`),
	// A key held while clicking: shift-click, ctrl-click a range.
	r(web, `shift+click shift+select ctrl+click control+click cmd+click meta+click`, `browser_keydown browser_click browser_keyup`).first("held"),
	r(anyDomain, `hold holding press+and+hold keep+down hold+down`, `browser_keydown`).with(modifierKeys).but(`stop+holding`).first("held"),
	r(anyDomain, `release let+go stop+holding`, `browser_keyup`).with(modifierKeys).but(`don+release don+t+release not+release without+releasing`).first("held"),
	r(0, `hover mouse+over put+the+mouse+on mouse+on+it move+the+mouse+over`, `browser_hover`),
	r(web, `drag draw`, `browser_mouse_drag`).with(`<point>`),
	r(web, `drag drop`, `browser_drag`).but(`<point> key keys table tables mock route network connection drop+all drop+them drop+it drop+the+mock unroute`),
	r(web, `scroll`, `browser_scroll`).but(`wheel`), // a wheel scrolled is the mouse's
	// A dialog, not "confirm the page shows ..." nor the confirmation page.
	r(web, `=confirm =alert =prompt`, `browser_handle_dialog browser_click`).with(`pops pop popup throws shows+a =accept =dismiss`),
	r(web, `dialog dialogs =alert =alerts =prompt confirm+dialog confirm+popup confirm+box confirmation+dialog js+confirm a+confirm the+confirm pops+a+confirm sure+confirm are+you+sure`, `browser_handle_dialog browser_click`).but(`confirmation+page confirmation+screen confirmation+email confirmation+number`),
	r(web, `reload refresh =f5`, `browser_reload`),
	r(web, `back`, `browser_navigate_back`).with(`go navigate press+back hit+back`).but(`online offline`),
	r(web, `forward`, `browser_navigate_forward`).with(`go navigate should must land lands`),
	r(web, `new+tab =tabs open+tabs switch+tab close+tab close+the+tab that+tab other+tab first+tab second+tab another+tab a+second+tab`, `browser_tabs`).but(`tab+through press+tab tab+key tab+order keyboard`),
	r(anyDomain, `second seconds millisecond milliseconds ms`, `wait_ms`).with(`wait pause sleep settle give+it give+the`),
	r(anyDomain, `give+it give+them let+it`, `wait_ms`).with(`=sec =secs =moment =bit =minute =few`).but(`second seconds millisecond milliseconds ms <measure>`), // "give it a few secs"
	r(anyDomain, `give+it give+the let+it settle`, `wait_ms`).with(`<measure>`).but(`second seconds millisecond milliseconds ms`),
	r(anyDomain, `wait pause sleep`, `wait_ms`).with(`<measure>`).but(`second seconds millisecond milliseconds ms until till up+to <selector> <quoted> max most`),
	r(web, `wait`, `browser_wait`).with(`until for appear`),

	// Observations.
	r(web, `video =recording record+a+video`, `browser_start_video`).with(`start record begin make`).but(`stop spec playwright+test`),
	r(web, `chapter`, `browser_video_chapter`),
	r(web, `recording video`, `browser_stop_video`).with(`stop end finish =save`),
	r(web|files, `spec playwright+test test+file <spec>`, `browser_export_test`).with(`export write save record turn`).but(`reuse`).first("export"),
	r(web, `export`, `browser_export_test`).with(`test`).first("export"), // "export the test" of what was done
	r(web, `screenshot capture =shot`, `browser_screenshot`).but(`directory folder zip`),
	r(web, `pdf <pdf>`, `browser_pdf_save`).but(`upload attach`).first("pdf"),
	r(files, `<pdf>`, `browser_pdf_save`).with(`save export print`).first("pdf"),
	r(web, `text`, `browser_get_text`).with(`read get grab copy pull extract give+me`),
	r(web, `grab note copy read pull get`, `browser_get_text`).with(`order+number reference+number confirmation+number rma+number booking+reference`),
	r(web, `grab`, `browser_get_text`).with(`it price total totals amount`).but(`screenshot picture image file api endpoint <api> <method>`),
	r(web, `read grab pull`, `browser_get_text`).with(`tooltip toast banner heading label hint message error+message first+row row cell caption`).but(checkWordList + ` localstorage sessionstorage cookie cookies redis key`), // "hover .salary-info and read the tooltip"
	r(web, `read+me read+out tell+me+what what+it+says what+it+shows read+it+to+me`, `browser_get_text`).but(`text console error errors network request requests`),
	r(web, `links link images buttons badges cards tiles chips`, `browser_get_elements`).with(`collect every all list gather each`),
	r(web, `console javascript+error js+error`, `browser_console_messages`),
	r(web, `<js> evaluate run+javascript run+js execute+javascript via+js with+js using+js in+js via+javascript`, `browser_evaluate`),
	// A page's own measures and state, read by script: web vitals, the
	// Performance API, where the keyboard's focus is.
	r(web, pageMeasures, `browser_evaluate`),
	r(web, `focus focused`, `browser_evaluate`).with(`land lands landed reach reaches return returns inside end+up ends+up goes move moves where should must`).but(`focus+ring`),
	// A check of every card, price or row the page shows reads them all.
	r(web, `every+card each+card all+cards all+the+cards every+price each+price all+prices all+the+prices every+shown all+shown every+tile all+tiles
		every+item all+items every+result all+results every+product each+product all+products all+the+products`, `browser_get_elements`).with(checkWordList).but(`<count>`),
	r(web, `network api+call request requests`, `browser_network_requests`).with(`page network` + pageLoadWords),
	r(web, a11yWords+` aria`, `accessibility_audit`).but(`tree snapshot`),
	r(web, `accessibility+tree aria+snapshot a11y+tree page+outline`, `browser_snapshot`).but(`=search ref look+through matching`),
	r(web, `=find =locate look+for`, `browser_find`).with(`<quoted> <named> element+that elements+that mention mentions`).but(`tool tools file files spec specs test tests log logs issue issues`),

	// Checks in the browser: the first that applies.
	r(web, `<js>`, `assert_equals`).checks().first("check"), // a value the page's script gives
	// "What does the delivery estimate say?": a question of what the page
	// says, answered by reading it, not a check.
	r(web, `what+does what+do what+s what+is`, `browser_get_text`).with(`say says`).but(`should must expect`).first("check"),
	// A page's value compared with an API's or a table's: read, then
	// compared.
	r(web, `match matches same+as the+same agree disagree`, `browser_get_text assert_equals`).with(`<method> <api> api endpoint db database table postgres redis`).first("check"),
	r(web, `how+many`, `assert_count`).first("check"),                         // "how many slot buttons does /book show?"
	r(web, `=between =inside`, `assert_range`).with(`<bound>`).first("check"), // "assert it is inside 0.50..2.00"
	r(web, `<count> more fewer number+of how+many per+page results+over are+at+least are+at+most`, `assert_count`).checks().first("check"),
	r(web, `httponly http+only samesite same+site secure+flag`, `assert_truthy`).with(`cookie cookies`).checks().first("check"), // a cookie's flags
	r(web, `<checkstate> ticked checked unchecked unticked untick uncheck tick+box checkbox consent+box opt+in radio it+really+off it+is+off it+s+off is+really+off really+off still+off stays+off toggle+on toggle+off toggled switched+on switched+off`, `assert_checked`).checks().first("check"),
	r(web, `gone hidden disappear disappears no+longer removed close closes closed not+shown not+be+shown not+visible not+be+visible not+displayed not+appear never+shown not+show goes+away go+away went+away shouldn+show shouldn+appear shouldn+be+visible doesn+show isn+showing isn+shown isn+visible aren+showing aren+shown aren+visible isn+there aren+there not+there nowhere+to+be+seen never+see never+sees`, `assert_hidden`).checks().first("check"),
	r(web, `be+back come+back comes+back came+back reappear reappears appear+again show+again shows+again back+again`, `assert_visible`).checks().first("check"), // "the promo banner should be back"
	r(web, `prefilled pre+filled holds hold value input textarea field`, `assert_value`).but(`text title heading link appear appears shows+up`).checks().first("check"),
	r(web, `title`, `assert_title`).checks().first("check"),
	r(web, `attribute attr attrs <attrvalue> alt+text =alt =src meta+tag its+href aria+label aria+labelledby aria+describedby aria+expanded aria+hidden`, `assert_attribute`).checks().first("check"), // data-variant="v2", "must have alt text"
	r(web, `url redirect redirected end+up land+on lands+on taken+to be+on is+on are+on still+on we+on back+on jump+to jumps+to jump+straight+to stay+on stays+on <topath>`, `assert_url`).checks().first("check"),
	r(web, `disabled enabled href canonical points+to point+to points+at point+at og+image`, `assert_attribute`).checks().first("check"),
	r(web, `localstorage sessionstorage`, `assert_equals`).with(`=equal =equals equal+to stored+in stored+under is+set holds`).checks().first("check"),                                                                                        // a stored value, not the page's text
	r(web, `<showsend>`, `assert_visible`).with(`<selector>`).but(`<quoted> hidden invisible not+visible not+show not+shown isn+visible aren+visible price prices total subtotal cost amount badge counter currency`).checks().first("check"), // ".empty-state must show", "button.nav-toggle visible?"
	r(web, `say says text read reads price label total subtotal amount cost <measure> mention mentions contain contains order+number confirmation+number reference+number error+message success+message validation+message error+text filename file+name badge+shows badge+show badge+says counter+shows counter+says`, `assert_text`).checks().first("check"),
	// A text quoted as expected is checked beside an audit of the console
	// ("should give 'Invalid code' and nothing in the console").
	r(web, `<quoted>`, `assert_text`).but(`appear appears appeared visible displayed show+up shows+up <named>`).with(checkWordList).first("check"),
	r(web, `<showsname>`, `assert_text`).but(`<named>`).checks().first("check"),                                                               // "check the suggestions show Cardiology"
	r(web, stateSaid, `assert_text`).but(`visible invisible displayed shown appear appears show+up shows+up <named>`).checks().first("check"), // "the status should be Approved"
	// Else a check that a thing is there; not a dialog's confirm()
	// ("Delete pops a confirm()"), nor a thing to see in a screenshot.
	r(web, `=show =shows =appear =display`, `assert_visible`).with(`=does =do`).but(`show+me show+us =what =which =how`).first("check"), // "does the mega menu show?"
	r(web, `check verify assert ensure =confirm =confirms make+sure see sees appear appears shown visible displayed show+up shows+up`, `assert_visible`).
		but(`dialog dialogs pops popup pop+up a+confirm the+confirm screenshot to+see want+to+see see+if see+what see+how`).checks().first("check"),

	// HTTP APIs.
	r(api, `=up =down`, `http_request`).with(`=is =are`).but(`go+up goes+up go+down goes+down`),                                                                         // "is the API up?"
	r(api|web, `went+out were+made got+made fired+off were+sent go+out goes+out`, `browser_network_requests`).with(`request requests call calls`).but(`<method> <api>`), // "then show me which requests went out"
	r(api, `api endpoint call get post put patch delete <method> request requests fetch hit send return returns status response respond <api> <path> curl wget reachable alive responding`, `http_request`).but(`page network mock mocked stub stubbed intercept went+out were+made got+made fired+off were+sent go+out goes+out hit+enter press+enter <twojson> means meaning actually+mean in+the+browser <urlglob> <numbers> this+request base64 encode encoded`),
	// A status checked is a check of its own beside one of the body.
	r(api, `<status>`, `assert_equals`).checks().first("status"),
	r(api, `schema`, `assert_json_schema`).checks().first("check"),
	r(api, `schema`, `fs_read`).with(`<file>`),
	r(api|pg|sqlite|redis|files|value, `<bound>`, `assert_range`).but(`worse slower regression regressions`).first("check"), // "10% worse" than a baseline: a regression's threshold
	r(api, `<statusclass>`, `assert_range`).checks().first("check"),                                                         // "expect 2xx"
	r(api|value, `contain contains include includes mention mentions in+it in+there body+has response+has`, `assert_contains`).checks().first("check"),
	r(docker|compose, `contain contains mention mentions in+there`, `assert_contains`).checks().first("check"), // a line in a container's logs
	r(api|pg|sqlite|redis|files|value, typeWords, `assert_type`).checks().first("type"),
	r(api|pg|sqlite|redis|files|value, typeWords, `assert_type`).with(`or+a or+an`).first("type"), // "is price a number or a string?"
	r(api|value, `truthy falsy is+set is+true is+false`, `assert_truthy`).checks(),
	r(api, `flag+set flag+is+set`, `assert_truthy`),                                                                                                                     // "is the inStock flag set for X?"
	r(api, `disallow disallows`, `assert_contains`),                                                                                                                     // robots.txt's rules
	r(api, `still+have still+has should+have must+have should+still+have`, `assert_contains`).with(`<quoted>`),                                                          // "does /robots.txt still have 'Disallow: /checkout'?"
	r(api, `comes+back come+back is+returned gets+returned`, `assert_truthy`).with(`<ident>`).but(`<status> <code> <quoted> status code error`).checks().first("check"), // "make sure a cartId comes back"
	r(api, `explain`, `http_status_info`).with(`status code`),                                                                                                           // "explain whatever status we get back"
	r(api, `check verify assert ensure =confirm =confirms make+sure return returns reject rejects status come+back comes+back answer answers`, `assert_equals`).checks().first("check"),

	// Databases.
	r(pg, `column columns schema structure describe definition what+tables which+tables list+tables list+the+tables tables+in+the show+me+the+tables its+tables all+tables all+the+tables =views indexes primary+key nullability table+look+like table+looks+like`, `db_pg_schema`).first("pg"),
	r(pg, `seed insert populate reseed stuff fill into+postgres into+local+postgres load+them+into load+into load+the+fixture load+these`, `db_pg_seed`).first("pg"),
	r(pg, `transaction migration migrations <sqlfile> <sqls> atomically atomic all+or+nothing undo+both undo+all all+of+them+undone roll+back+if rolled+back+if`, `db_pg_transaction`).but(`checksum hash sha256 md5`).first("pg"),
	r(pg, `table tables row rows query count select read find whose compare match matches record records shows+up <sql> <ident>`, `db_pg_query`).first("pg"),
	r(pg, `check verify ensure make+sure =confirm should must expect there+are there+is no+user no+row no+rows how+many`, `db_pg_query`).but(`healthy connection connections connect reachable`).first("pg"),
	r(pg, dataAsked, `db_pg_query`).but(dataNotAsked).first("pg"),
	r(sqlite, `open`, `db_sqlite_open`).first("sqlite"),
	r(sqlite, `column columns schema structure describe definition what+tables which+tables list+tables show+me+the+tables the+tables its+tables create+table`, `db_sqlite_schema`).first("sqlite"),
	r(sqlite, `table tables row rows query count select read find whose record records <sql> <ident>`, `db_sqlite_query`).first("sqlite"),
	r(sqlite, `check verify ensure make+sure =confirm should must expect there+are there+is no+user no+row no+rows how+many`, `db_sqlite_query`).but(`healthy connection connections connect reachable`).first("sqlite"),
	r(sqlite, dataAsked, `db_sqlite_query`).but(dataNotAsked).first("sqlite"),
	r(redis, `hash`, `db_redis_hash`).first("redis"),
	r(redis, `one+of+them the+one+for what+in+the+one show+me+one`, `db_redis_get`).first("redis"), // "list the session:* keys and show me the one for user 4411"
	r(redis, `delete remove clear wipe evict drop`, `db_redis_keys db_redis_del`).with(`<keyglob>`).first("redis"),
	r(redis, `it+empty is+empty s+empty nothing+matching nothing+left is+left`, `db_redis_keys`).first("redis"), // "confirm it's empty"
	r(redis, `clear wipe`, `db_redis_del`).with(`<key>`).but(`<keyglob>`).first("redis"),                        // "clear ratelimit:apply:5521": that key
	r(redis, `flush clear wipe empty`, `db_redis_flush`).but(`<keyglob>`).first("redis"),
	r(redis, `preload seed populate load`, `db_redis_set`).with(`<key> <keyglob> key keys`).first("redis"),
	r(redis, `set store write flip turn+on turn+off enable disable expire ttl put+back put restore =lock`, `db_redis_set`).first("redis"),
	r(redis, `=keys pattern`, `db_redis_keys`).first("redis"),
	r(redis, `delete remove evict drop`, `db_redis_del`).first("redis"),
	r(redis, `read get hold holds value cache compare`, `db_redis_get`).first("redis"),
	r(redis, `<key>`, `db_redis_get`).first("redis"),

	// Files.
	r(files, `backup back+up`, `fs_backup`),
	r(files, `restore`, `fs_restore`),
	r(files, `zip archive compress`, `fs_zip`).but(`unzip extract delete remove`),
	r(files, `unzip extract unpack`, `fs_unzip`),
	r(files, `watch monitor keep+an+eye whenever notify tell+me+when`, `fs_watch`),
	r(files|web, `find grep which+spec which+specs which+test`, `fs_search`).with(`spec specs every+file test+files`).but(`flaky`),
	r(files, `where which+files`, `fs_search`).with(`call calls called use uses used define defined import imports imported referenced mention mentions`),
	r(files, `find search grep mention mentions containing`, `fs_search`).but(`flaky flip flips failing failures check verify make+sure ensure`),
	// Measures of a page compared with a baseline file: the file read,
	// the regression judged (not a diff of two documents).
	r(files, `compare diff against vs versus`, `fs_read performance_regression`).with(perfWords).first("perfdiff"),
	r(web|files, `compare diff`, `browser_get_text string_diff`).with(`page+text homepage+text text+of text+on+the+page copy+on wording`).but(`<twofiles> line+diff text+diff`).first("perfdiff"),
	r(files, `compare diff`, `fs_read object_diff`).with(`key+by+key field+by+field keys fields values`).first("perfdiff"),
	r(files, `compare diff`, `fs_diff`).with(`<twofiles> the+backup backup+copy the+original original+copy`).but(`timing timings slower faster durations key+by+key field+by+field keys fields values`).first("perfdiff"),
	r(files|api, `compare diff`, `fs_read object_diff`).with(`<file>`).but(`<twofiles>`).first("perfdiff"),
	r(anyDomain, `compare diff different difference differences`, `object_diff`).with(`<twojson>`).first("diff"),
	r(api, `diff compare differences same`, `string_diff`).with(`<sitefile>`).first("diff"),                                                                                  // two robots.txt are texts
	r(api, `diff compare differences`, `object_diff`).with(`them both prod production staging`).but(`<twofiles> text line+diff checksum hash sha256 sha1 md5`).first("diff"), // two answers of an API
	r(anyDomain, `compare diff different difference differences changed what+changed`, `string_diff`).with(`<twotexts>`).first("diff"),                                       // old: '...' new: '...'
	// A file's content checked is read, then the check made.
	r(files, `contain contains made+it+into in+the+file into+the+file =says`, `fs_read assert_contains`).checks(),
	r(files, `read open load contents`, `fs_read`).but(`<plan> read+only readonly session storage+state`),
	// A file the request says holds what the work needs is read.
	r(files, `=has =holds =lists =contains is+in are+in sits+in live+in lives+in kept+in`, `fs_read`).with(`<infile>`).but(`<plan> exist exists what+files which+files`),
	r(files, `=change =edit =update =bump =modify =set`, `fs_read fs_write`).with(`<file>`).but(`chmod permission permissions mode owner before+i copy`),
	r(files, `dump`, `fs_write`).with(`into =to`),
	r(files, `write overwrite save store export record+the record+all`, `fs_write`).but(`we+saved what+we+saved we+stored the+page this+page screenshot pdf <pdf> storage+state har video spec playwright+test <spec>`),
	r(files, `list =ls`, `fs_list`).but(`failure failures`),
	r(files, `what+s+in what+in what+is+in show+me+what what+files which+files files+are+in files+in+the`, `fs_list`).but(`list failure failures read <namedfile>`),
	r(files, `what+s+in what+in what+is+in show+me+what show+me show+it =cat`, `fs_read`).with(`<namedfile>`).but(`what+files which+files`),
	r(files, `hash checksum sha256 md5`, `fs_hash`),
	r(files, `doesn+exist+yet not+exist+yet doesn+exist dont+exist don+t+exist`, `fs_mkdir`).with(`folder directory dir <dir>`),
	r(files, `exist exists there+yet is+back are+back is+there+a do+we+have+a it+gone is+gone are+gone actually+gone really+gone no+longer+there`, `fs_exists`).but(`doesn+exist+yet`),
	r(files, `copy`, `fs_copy`),
	r(files, `delete remove rm`, `fs_remove`),
	r(files, `delete+the+zip remove+the+zip delete+the+archive`, `fs_remove`),
	r(files, `move rename change+the+name`, `fs_move`),
	r(files, `show+me+the+result show+the+result see+the+result show+me+the+first the+first+one`, `fs_read`), // of a file just written or found
	r(files, `get+rid clean+out =bin`, `fs_remove`),
	r(files, `executable chmod permission permissions read+only readonly mode+<number> =0644 =0755 =0600 =0700 =0444 =0777`, `fs_chmod`),
	r(files, `chown owner owned+by uid gid`, `fs_chown`),
	r(files, `mkdir`, `fs_mkdir`),
	r(files, `recreate`, `fs_mkdir`).but(`=file`), // "remove screenshots/old and recreate it empty"
	r(files, `create make`, `fs_mkdir`).with(`<dir> folder directory`).but(`=file zip archive backup back+up copy`),

	// Checks of data: databases, caches, files; first, validation against
	// a schema, whatever the data.
	r(0, `schema`, `assert_json_schema`).with(`validate valid validation conform conforms match matches against`).but(`generate generat example examples fake`).first("check"),
	r(api|value|files, `starts+with start+with begins+with ends+with =starts prefix`, `assert_contains`).checks().first("check"),
	r(value, `=says contain contains include includes mention mentions`, `assert_contains`).with(`check verify assert ensure =confirm make+sure expect should must`).first("check"),
	r(value, `check verify assert ensure =confirm =confirms make+sure expect`, `assert_equals`).with(`<quoted> =is =equals =equal`).first("check"),
	r(pg|sqlite|redis, `the+same+as same+as+what match+what matches+what agree+with agrees+with`, `assert_equals`).first("check"), // "is the order count the same as what /api/stats reports?"
	r(pg|sqlite|redis, `check verify assert ensure =confirm =confirms make+sure expect`, `assert_equals`).but(`healthy connection connections connect contain contains made+it+into`).first("check"),
	// A file that exists, or is gone, is checked by looking for it.
	r(files|value, `schema`, `assert_json_schema`).checks().first("check"), // a file checked against a schema
	r(files, `check verify assert ensure =confirm =confirms make+sure expect`, `assert_equals`).but(`contain contains made+it+into exist exists gone`).first("check"),
	r(0, `diff`, `object_diff`).with(`the+two the+2`).but(`<file> <twofiles> text texts string strings file files page pages screenshot screenshots`), // "get it from the API and from pg, and diff the two"
	r(0, `compare`, `object_diff`).but(`<file> text texts string strings checksum hash sha256 sha1 md5 digest compare+page compare+tray compare+button compare+slot compare+bar compare+drawer the+compare` + perfWords),
	r(anyDomain, `compare match matches`, `assert_equals`).with(`checksum hash sha256 sha1 md5 digest`).but(`<twojson>`).first("check"),

	// Test results and analysis.
	r(0, `summarize summarise summary pass+rate overview =totals`, `report_summary`).but(`<selector> summary+box order+summary basket+summary summary+panel summary+section of+the+summary summary+page summary+step summary+screen`), // not the page's summary box
	r(0, `report`, `report_summary`).with(`result results junit <file>`).but(`issue bug flaky flake flakiness`),
	r(0, `failure failures fail failed error errors why`, `report_failures`).with(`test tests list group failure failures results+are+in results+in`).but(`flaky flip flips both+passed event events xhr request requests call calls nobody+tests` + failIfNot),
	r(0, `slowest slow slower timing timings durations`, `report_timing`).with(`test tests report reports junit suite suites`).but(`<dbrows>`),
	r(0, `flaky flake flakiness intermittent passed+in+some some+runs failed+in+others sometimes+fail sometimes+fails sometimes+pass`, `test_flaky_detect`),
	r(0, `run+first go+first prioritize prioritise priority order+by+risk`, `test_prioritize`),
	r(0, `duplicate duplicates redundant`, `test_deduplicate`).with(`test tests`),
	r(0, `missing gap gaps what+kind`, `test_coverage_gaps`).with(`test tests`),
	r(0, `slower baseline`, `performance_regression`).but(`test tests`).first("perf"),
	// A regression is a performance one where the request speaks of
	// speed; else it is a feature that broke ("promo regression:").
	r(0, `regress regression regressed`, `performance_regression`).with(`lcp ttfb cls fcp tti inp perf performance load+time bundle size faster speed timing timings latency duration durations ms <measure>`).but(`test tests`).first("perf"),
	r(0, `percentile percentiles median average p95 p99 mean stats statistics`, `math_stats`).but(`what+does what+do mean+again what+mean =meaning to+mean timing+stats slowest`),
	r(value, `sha256 sha1 sha512 md5 hash checksum digest`, `hash_text`),
	r(0, `decode decoded encoded base64`, `base64_encode`).with(`<b64>`),
	r(0, `=exp =expired time+wise`, `timestamp_now assert_range`).with(`jwt`), // a token's exp against the time now

	// Jobs and sub-agents: the first that applies.
	r(agent, `=stopped really+stopped is+stopped has+stopped`, `spawn_status`).first("agent"),
	r(agent, `been+doing actually+doing`, `spawn_status spawn_logs`).but(`=cancel =stop =kill =abort`).first("agent"), // "what has sp_22 been doing?"
	r(agent, `=cancel =cancelled =stop =kill =abort`, `spawn_cancel`).first("agent"),                                  // not "tests for cancellation"
	r(agent, `status progress`, `spawn_status spawn_logs`).with(`log logs output`).first("agent"),                     // "its status and recent output"
	r(agent, `log logs output printing prints printed saying`, `spawn_logs`).first("agent"),
	r(agent, `=going`, `spawn_status`).with(`<spawn>`).first("agent"), // "how's sp_31 going"
	r(agent, `status progress doing check+on phase so+far how+far`, `spawn_status`).first("agent"),
	r(agent, ``, `spawn_agent spawn_status`).but(`<spawn>`).first("agent"),
	// A pull request a job or a comment is about is looked up first: its
	// head branch, or which one was merged last.
	r(job|github, `pr prs pull+request pull+requests`, `gh_pr_list`).with(`its+head head+branch most+recently+merged last+merged latest+merged recently+merged each+pr for+prs`),
	r(job, `cancel stop kill abort`, `task_cancel`).first("job"),
	r(job, `artifact artifacts`, `task_artifacts`).first("artifacts"),
	r(job, `unzip unpack`, `fs_unzip`),
	r(job, `status`, `task_status`).with(`log logs output`),
	r(job, `log logs output printed prints`, `task_logs`).with(`its it this+job that+job job+<number> the+log the+job`).first("joblog"),
	r(job, `log logs output`, `task_logs task_list`).first("job"),
	r(job, `jobs+in+the+queue show+me+the+jobs list+the+jobs the+jobs+in`, `task_list`).but(`how+many`).first("job"), // "show me the jobs in the queue"
	r(job, `pool busy queued how+many piling piling+up how+s+the how+the queue+status queue+doing how+the+queue how+the+job+queue`, `pool_status`).but(`=run =rerun =resubmit =submit as+queued+jobs`).first("job"),
	r(job, `kept keep junit report reports file files`, `task_artifacts`).first("job"),
	r(job, `status finish finishes finished done state still+running is+it+running`, `task_status`).with(`job+<number> my+job the+job this+job that+job still+running`).first("job"),
	r(job, `find+it find+the+job which+job list newest recent latest all which last+few last+jobs`, `task_list`).but(`it+lists`).first("job"),
	r(job, `status finish finishes finished done state`, `task_status`).first("job"),
	r(job, `run submit queue start kick execute build test tests background worktree rerun resubmit requeue reproduce repro`, `task_submit task_status`).but(`settle give+the+queue lately anything+fail anything+failed how+many backed+up =running are+running is+running job+<number> hung stuck`).first("job"),

	// Containers.
	// A stack has no inspect of its own: its container is Docker's.
	r(compose|docker, `inspect`, `docker_inspect`).first("compose"),
	r(compose, `what+s+up what+up what+s+down what+down up+and+down which+are+up which+are+down`, `compose_ps`).first("compose"),
	r(compose, `restart+everything restart+the+stack recycle down+up`, `compose_down compose_up`).first("compose"),
	r(compose, `down tear stop remove`, `compose_down`).but(`is+down are+down whatever+is+down not+running`).first("compose"),
	r(compose, `log logs`, `compose_logs`).first("compose"),
	r(compose, `exec shell`, `compose_exec`).first("compose"),
	r(compose, `run execute`, `compose_exec`).with(`inside service`).but(`up bring start launch =running`).first("compose"),
	r(compose, `run execute exec`, `compose_exec`).with(`<incontainer>`).but(`up bring start launch`).first("compose"),
	r(compose, `<command>`, `compose_exec`).with(`in+the inside`).but(`up bring start launch`).first("compose"),
	r(compose, `ps status running healthy ready containers is+everything actually+up are+they+up came+up which+services services+are+up`, `compose_ps`).but(`bring+up start`).first("compose"),
	r(compose, `up start run bring launch`, `compose_up`).but(`come+up comes+up coming+up won+come`).first("compose"),
	r(compose, `up+again back+up`, `compose_up`), // "compose down with volumes, up again"
	r(docker, `build dockerfile built rebuild rebuilt`, `docker_build`),
	r(docker, `pull download fetch`, `docker_pull`).with(`<image> image images`),
	r(docker, `how+big size`, `docker_images`).with(`image images`),
	r(docker, `=images`, `docker_images`).but(`build pull prune remove rm delete clean cleanup how+big size their with+its`),
	r(docker, `=volumes`, `docker_volumes`).but(`create make new prune remove rm delete clean cleanup compose attached their its`),
	r(docker, `network networks`, `docker_networks`).with(`create make new list have exist`).but(`compose remove rm delete cleanup clean`),
	r(docker, `volume volumes`, `docker_volumes`).with(`create make new list have exist`).but(`compose remove rm delete cleanup clean`),
	r(docker, `died crashed crash exited dead why`, `docker_inspect docker_logs`).but(`compose`).first("docker"),
	r(docker, `=running list which ps show+all all+containers every+container stopped+ones exited+ones find+the locate`, `docker_ps`).but(`compose image images`).first("docker"),
	r(docker, `healthy health healthcheck healthchecks ready up+yet state exit+code it+up is+up`, `docker_inspect`).but(`compose log logs`).first("docker"),
	r(docker, `log logs tail output prints printed`, `docker_logs`).but(`compose`).first("docker"),
	r(docker, `exec shell`, `docker_exec`).but(`compose`).first("docker"),
	r(docker, `run execute`, `docker_exec`).with(`inside in+the+container in+container in+the+running <incontainer> psql cli <sql>`).but(`compose`).first("docker"),
	r(docker, `<command>`, `docker_exec`).with(`container`).but(`compose image images <image> new fresh`).first("docker"), // run `cmd` in the api-1 container
	r(docker, `replace swap`, `docker_stop docker_rm docker_run`).with(`container <image>`).first("docker"),               // "replace the old x container with x:1.4"
	r(docker, `stop halt`, `docker_stop`).but(`compose`).first("docker"),
	r(docker, `remove rm delete`, `docker_rm`).but(`compose image images volume volumes network networks`),
	r(docker, `prune cleanup clean nuke`, `docker_cleanup`).but(`compose`).first("docker"),
	r(docker, `run start launch spin+up`, `docker_run`).but(`compose`).first("docker"),

	// GitHub.
	r(github, `summary+of summarise summarize`, `report_summary`).with(`<file>`).but(`agent pr+summary`),
	r(github, `back+to+the+default back+to+the+env back+to+my+own back+to+my stop+using forget+the+token drop+the+token drop+the+github =forget`, `gh_disconnect`).first("ghtoken"),
	r(github, `token <ghtoken> personal+access+token`, `gh_connect`).first("ghtoken"),
	r(github, `protected default+branch default+one stars visibility`, `gh_repo_info`),
	r(github, `review`, `gh_diff gh_pr_review`).with(`pull+request pr`),
	r(github, `approve request+changes`, `gh_pr_review`).but(`review`),
	r(github, `merge`, `gh_pr_merge`),
	r(github, `list show which what open+prs open+pr open+pull+requests are+open is+open still+open =find the+open look+at view check+out pull+up`, `gh_pr_list`).with(`pull+request pr`).first("gh"),
	r(github, `list show which what+issues were+filed filed+this`, `gh_issue_list`).with(`issue issues`).but(`open+an open+a open+one open+new open+issue create file+an file+a file+one file+issue raise`).first("gh"),
	r(github, `open create file raise report+a report+an report+the report+it report+this`, `gh_pr_create`).with(`pull+request pr`).but(`the+open find+the+open any+open open+prs is+open are+open`).first("gh"),
	r(github, `open create file raise report+a report+an report+the report+it report+this`, `gh_issue_create`).with(`issue a+bug`).but(`open+issues list+the+open were+filed was+filed filed+this filed+since filed+last`).first("gh"),
	r(github, `comment`, `gh_issue_comment`).but(`approve request+changes`).first("gh"),
	r(github, `flaky flake flakiness intermittent flip flips`, `gh_workflow_runs test_flaky_detect`).but(`<file> issue issues label labelled labeled`).first("gh"),
	r(github, `flaky flake flakiness intermittent flip flips`, `test_flaky_detect`).first("gh"),
	r(github, `trigger retrigger =run =rerun start dispatch kick`, `gh_workflow_run`).with(`workflow ci <yml>`).but(`green red passed failed status`).first("gh"),
	r(github, `run runs pass passed status green result ends how+it+ends finish finishes`, `gh_workflow_runs`).but(`merge pass+rate`),
	r(github, `=workflows`, `gh_workflow_list`).but(`run runs trigger retrigger dispatch kick flaky =rerun status green red pass passed fail failed failing`).first("gh"), // "which workflows does acme/web have"
	r(github, `ci+run run+passed run+is+green is+green passed+ci ci+passed checks+passed`, `gh_workflow_runs`).with(`merge`),
	r(github, `branch`, `gh_branch_create`).with(`create new cut branch+off`),
	r(github, `=branches`, `gh_branch_list`).but(`create new cut delete merge =off =from per+branch`),
	r(github, `=cut`, `gh_branch_create`).with(`=from =off`), // "cut release/2.4 from main"
	r(github, `<filediff>`, `string_diff`),
	r(github, `changed+between what+changed what+it+changes its+changes changes+vs changes+against diff drifted compare`, `gh_diff`).but(`review <filediff>`),
	r(github, `read show open <file>`, `gh_file_read`).with(`<file>`).but(`update edit change write fix bump modify junit report reports trigger kick dispatch runs run+link run+id commit push new+file a+new executable chmod permission exist exists`),
	r(github, `pull get fetch grab read`, `gh_file_read`).with(`spec specs test+file config`).but(`pr pull+request runs run <file> mcp server servers`), // "pull the failing spec from the repo"
	// A file changed in a repository is read first: the write takes it
	// whole.
	r(github, `commit add+a+new create+a+new new+file =add`, `gh_file_write`).with(`<file>`).but(editWords + ` my+local local+file`),
	r(github, `push my+local local+file`, `fs_read gh_file_write`).with(`<file>`).first("ghwrite"), // a local file pushed to the repository
	r(github, `commit`, `gh_file_write`).with(`it change changes them there fix`).but(`<file>`),    // "commit the change there": the file named before
	r(github, editWords, `gh_file_read gh_file_write`).with(`<file>`).but(`set+to what+are what+is`),

	// Hosted MCP servers.
	r(gateway, `discover discovered configured config cursor claude+code vs+code import`, `mcp_discover`),
	r(gateway, `=host =hosting register add attach plug behind+the+gateway`, `mcp_register`).but(`unregister which what are+you right+now already host+port on+host+port still+registered is+registered`),
	r(gateway, `it+gone is+gone actually+gone whats+left what+s+left what+is+left`, `mcp_list`).but(`tool tools`).first("gwlist"), // "unregister it and confirm it's gone"
	r(gateway, `list which+servers what+servers which+hosted are+we+hosting we+host find+the+old not+sure+what what+id+it`, `mcp_list`).but(`tool tools should+take would+take take+it server+should server+would which+hosted+server+should`),
	r(gateway, `health healthy alive up dead fail failing failures slow bad doing errored erroring erroring+out`, `mcp_health`).but(`bring+up which+server least+busy`),
	r(gateway, `tool tools offer offers catalog bring brings provide provides`, `mcp_catalog`).but(`which+server route`),
	r(gateway, `which+server which+hosted route handle should+take would+take send`, `mcp_route`),
	r(gateway, `least+busy spread balance load+balance`, `mcp_loadbalance`).first("gateway"),
	r(gateway, `fallback fall+back failover fail+over next+one the+next`, `mcp_failover`).first("gateway"),
	r(gateway, `=every =each =all`, `mcp_aggregate`).with(`<toolserver>`).first("gateway"), // "call extract_text on every pdf server"
	r(gateway, `every+server all+servers each+server side+by+side together aggregate`, `mcp_aggregate`).first("gateway"),
	r(gateway, `call invoke`, `tool_call`).first("gateway"),
	r(gateway, `unregister remove detach drop take+it+out take+out`, `mcp_unregister`),

	// The Igors, dynamic tools, squads.
	r(workers, `status health healthy ok okay alive memory stuck came+back come+back back+up check look+at doing how+are how+s overview`, `worker_status`).but(`leak leaking`),
	r(workers, `=restart`, `worker_restart`).with(`eating hogging leaking leaks using`), // "restart the one that's eating memory"
	r(workers, `restart restarted recycle`, `worker_restart`).but(`memory uptime health status how+many =restarted did+any any+worker any+igor in+the+last+few`),
	r(dynamic, `snapshot`, `worker_snapshot`).but(`=snapshots restore rollback roll+back =roll revert latest+snapshot last+snapshot the+snapshot`),
	r(dynamic, `=snapshots list+snapshot list+them which+snapshots`, `worker_snapshots`).but(`latest+snapshot last+snapshot newest+snapshot`),
	r(dynamic, `rollback roll+back restore revert undo`, `worker_rollback`),
	r(dynamic, `delete remove drop`, `dynamic_tool_delete`).but(`dropped+it dropped+into i+dropped`),
	r(dynamic, `reload rescan`, `tools_reload`),
	r(dynamic, `can+be+found found+now shows+up show+up`, `tool_search`),
	r(squads, `create set+up form start make spin+up`, `squad_create`),
	r(squads, `share shared put give hand`, `squad_share`).but(`what+shared read get what+did what+does`),
	r(squads, `run dispatch through as+that`, `squad_dispatch`),
	r(squads, `what+shared read get value+of what+did what+does`, `context_get`),
	r(squads, `dissolve disband tear`, `squad_dissolve`),

	// Text, templates, the server.
	r(anyDomain, `event+log recent+events front+events in+the+last+few`, `events_recent`),
	// "the events" of the server, not a concert ("the seat map for event
	// 4417").
	r(0, `event events`, `events_recent`).with(`recent latest last failure failures failed fail front igor igors worker workers task tasks registered the+events in+events complains complain complaining`).but(`event+<number>`),
	r(0, `only+show only+list show+only list+only just+show`, `tool_bag`).with(`=tools`).but(`test tests`), // "only show me browser_* and assert_* tools for now"
	r(0, `tool+list my+list in+my+list to+my+list tools+in+my`, `tool_bag`).but(`<plan> can+t+find cannot+find not+in+my isn+t+in don+t+see`),
	r(0, `some+tool+here tool+here+that any+tool a+tool+that a+tool+for tool+exists tool+that+does find+a+tool search+properly is+there+a+tool find+the+tools look+up+the+tools find+tools look+up+tools tools+that+fit tools+for+that find+me+tools tools+that+could tools+that+can`, `tool_search`),
	r(files, `template templates render tpl tmpl`, `fs_read fs_template`).with(`values+in data+in values+from data+from using+the+values using+the+data vars+from`).first("template"), // its values read from a file first
	r(files, `template templates render tpl tmpl`, `fs_template`).first("template"),
	r(0, `template render <tmpl>`, `template_render`).first("template"),
	r(0, `pretty+print pretty+printed prettify pretty`, `json_format`),
	r(anyDomain, `valid invalid parse+error parses well+formed`, `json_format`).with(`=json`).but(`schema against`), // "is this even valid json?": its syntax, no schema
	r(0, `indent indentation one+line onto+one+line minify squash readable`, `json_format`).with(`json blob response payload <json>`).but(`schema`),
	r(anyDomain, `sha256 sha1 sha512 md5`, `hash_text`).with(`string text <quoted>`).but(`<file> file`),
	r(0, `current+time current+date timestamp+now stamp+it what+time+is+it the+time+now in+the+future in+the+past days+from+today weeks+from+today`, `timestamp_now`),
	r(files|web|value, `grep`, `fs_search`),
	r(0, `weekday day+of+the+week days+after days+later days+from+now add+days business+days last+day day+window days+window deadline plus+<number> minus+<number> days+from+today weeks+from+today`, `date_utils`),
	// A question of dates: which day a thing falls on, how far away it is.
	r(0, `what+date which+date what+day+is what+day+will what+day+should what+exact+time what+exact what+time+should what+time+will days+away days+left days+until weeks+away`, `date_utils`).but(`what+time+is+it`),
	r(0, urlParts, `url_parse`).with(`<link> url link`),
	r(anyDomain, `line+diff text+diff diff+of+the+text line+by+line+diff`, `string_diff`),
	r(anyDomain, `line+by+line`, `string_diff`).with(`diff compare differ`).but(`line+diff text+diff diff+of+the+text line+by+line+diff`),
	r(0, `<regex> regex regexp regular+expression`, `regex_test`).with(`<regex> match matches test`),
	r(0, `<code>`, `http_status_info`).with(`mean means meaning meant retry what+is what+does difference+between`),
	r(anyDomain, `custom+tool new+tool typescript own+tool`, `dynamic_tool_create`),
	r(anyDomain, `tool`, `dynamic_tool_create`).with(`create creat make write build add replace`).but(`custom+tool new+tool typescript own+tool tool+list my+list`),
	r(dynamic|value|gateway, tryItWords, `tool_call`).but(`nobody+uses no+one+uses nobody+use anymore no+longer`),
	r(0, `fail+lately failed+lately anything+fail anything+failed`, `events_recent`),
	r(0, `code`, `http_status_info`).with(`mean means meaning`),

	// Tear-down.
	r(web, `trace tracing`, `browser_stop_tracing`),
	r(pg, disconnect, `db_pg_disconnect`),
	r(redis, disconnect, `db_redis_disconnect`),
	r(pg, `=close`, `db_pg_disconnect`).with(`=it =that`).but(`page tab tabs browser dialog modal`), // "... the 'local' Postgres pool; close it"
	r(redis, `=close`, `db_redis_disconnect`).with(`=it =that`).but(`page tab tabs browser dialog modal`),
	r(sqlite, disconnect+` close`, `db_sqlite_close`),
}

// triggers reads a space-separated list: words and "a+b" phrases, each
// word reduced to its stem as a step's words are.
func triggers(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "<") {
			out = append(out, f)
			continue
		}
		if w, ok := strings.CutPrefix(f, "="); ok {
			out = append(out, "="+w) // the word as written, not its stem
			continue
		}
		parts := strings.Split(f, "+")
		for i, p := range parts {
			parts[i] = search.Stem(p)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

var networkStem = search.Stem("network")

// pageMeasureWords are pageMeasures as triggers.
var pageMeasureWords = triggers(pageMeasures)

// workflowVerbs start a workflow.
var workflowVerbs = triggers(`trigger dispatch kick rerun`)

// dataAsked ask a database for data in words of no query: "get products
// with price 0", "show me the new prices", "the last 10 orders"; not a
// connection's state, nor injection payloads or the time.
const (
	dataAsked    = `get show give fetch list which what last latest newest`
	dataNotAsked = `healthy connection connections connect reachable close disconnect injection payloads inputs time+now seconds`
)

// localRepo is the checkout the agent works in.
var localRepo = triggers(`repo+root root+of+the+repo project+root`)

// queuePage is a site's queue, a page.
var queuePage = triggers(`queue+page waiting+room`)

// openWords open a page.
var openWords = triggers(`open go visit navigate load reload browse`)

// aboutOf is what a step's own words are about.
func aboutOf(c *clause) domain {
	var d domain
	for _, dw := range domainWords {
		if c.hasAny(dw.words) {
			d |= dw.d
		}
	}
	if d&db != 0 && c.hasAny(tableWords) {
		d &^= job // the jobs table, a queue table: a database's
	}
	c.dbs = d & (pg | sqlite | redis)
	if c.has(networkStem) && d&api != 0 && !c.has("<method>") {
		d = d&^api | web // the network's requests: the page's, not an API to call
	}
	if c.hasAny(pageMeasureWords) {
		d = d&^api | web // the Performance API is the page's
	}
	if c.hasAny(localRepo) && !c.has("<repo>") {
		d = d&^github | files // "a .env.staging in the repo root": the working copy's file
	}
	if c.hasAny(queuePage) {
		d = d&^job | web // "the queue page": a shop's waiting room, not the job queue
	}
	if c.has("<page>") && (d&api == 0 || c.hasAny(pageLoads)) {
		d |= web // a URL to open, not an API to call; the requests a page makes as it loads
	}
	if c.has("<path>") && !c.has("<api>") && d == 0 {
		d |= web // "then open /book", "cancel it from /account/orders/12": a page of the site
	}
	if c.has("<yml>") && c.hasAny(workflowVerbs) {
		d |= github // "trigger e2e.yml on feature/x": a repository's workflow
	}
	if d&(pg|sqlite|redis) != 0 && !c.has("<page>") {
		d &^= web // a hash's field, a table's rows: not a page's
	}
	if d&owners != 0 {
		d &= owners | report
	}
	// A sub-agent's task or a job's names its repository: it is not
	// GitHub work of its own.
	switch {
	case d&gateway != 0:
		d &^= agent // the MCP servers configured in Claude Code
	case d&agent != 0:
		d &^= job | github | docker | compose
	case d&job != 0:
		d &^= github | docker | compose
	}
	return d
}
