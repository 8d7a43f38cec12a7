package search

// synonyms widens a query word (after stemming) with the words the tools
// use for the same thing. Keys are stems, as Terms makes them; values are
// plain text, stemmed when used. Add to it when a query users write fails
// to find its tool (search_test.go holds the queries).
var synonyms = map[string][]string{
	// hashing and encoding
	"checksum": {"hash"}, "digest": {"hash"}, "fingerprint": {"hash"}, "md5": {"hash"}, "sha": {"hash"}, "sha256": {"hash"}, "sha1": {"hash"},
	"encode": {"base64"}, "decode": {"base64"}, "b64": {"base64"},
	// test data
	"fake": {"generate data"}, "mock": {"generate data"}, "dummy": {"generate data"}, "synthetic": {"generate data"},
	"sample": {"generate data"}, "seed": {"generate data"}, "fixture": {"generate data"},
	"user": {"person name email"}, "people": {"person name"}, "customer": {"person name"},
	"injection": {"edge case"}, "xss": {"edge case"}, "attack": {"edge case"}, "malicious": {"edge case"},
	"payload": {"edge case"}, "fuzz": {"edge case"}, "weird": {"edge case"}, "nasty": {"edge case"},
	// comparing
	"compare": {"diff"}, "difference": {"diff"}, "differ": {"diff"}, "changed": {"diff"},
	"equal": {"equals assert"}, "same": {"equals assert"}, "identical": {"equals"},
	"contain": {"contains"}, "include": {"contains"}, "substring": {"contains"},
	"between": {"range"}, "within": {"range"}, "bound": {"range"},
	"satisfy": {"schema instance"}, "example": {"instance generate"}, "conforming": {"schema instance"},
	"valid": {"validate validator schema"}, "validate": {"validator schema"}, "conform": {"schema validate"},
	// tests and CI
	"flaky": {"flaky"}, "flake": {"flaky"}, "intermittent": {"flaky"}, "unstable": {"flaky"}, "nondeterministic": {"flaky"},
	"first": {"prioritize rank"}, "priority": {"prioritize"}, "risky": {"prioritize risk"}, "order": {"prioritize rank"},
	"similar": {"duplicate"}, "redundant": {"duplicate"}, "overlap": {"duplicate"},
	"gap": {"coverage"}, "lack": {"coverage gaps"}, "missing": {"coverage gaps"}, "untest": {"coverage gaps"},
	"summary": {"summarise report"}, "summarize": {"summarise report"}, "overview": {"summarise report"},
	"pass": {"status report summary"}, "rate": {"report summary"},
	"fail": {"failure"}, "failure": {"failure"}, "broken": {"failure"}, "why": {"failure analyse"},
	"slow": {"timing duration"}, "slowest": {"timing duration"}, "duration": {"timing"}, "latency": {"timing"},
	"regression": {"regression performance"}, "perf": {"performance"}, "slower": {"performance regression"},
	"lcp": {"performance"}, "bundle": {"performance"}, "baseline": {"performance regression"},
	// text
	"regex": {"regex regular expression"}, "regexp": {"regex"}, "pattern": {"regex"}, "match": {"regex"},
	"template": {"template render"}, "placeholder": {"template"}, "mustache": {"template"}, "fill": {"template render"},
	"pretty": {"json format"}, "prettify": {"json format"}, "beautify": {"json format"}, "minify": {"json format"}, "indent": {"json format"},
	// utilities
	"time": {"timestamp"}, "now": {"timestamp"}, "clock": {"timestamp"}, "epoch": {"timestamp"}, "unix": {"timestamp"},
	"day": {"date"}, "week": {"date"}, "month": {"date"}, "calendar": {"date"}, "tomorrow": {"date"}, "yesterday": {"date"},
	"sleep": {"wait ms"}, "pause": {"wait ms"}, "delay": {"wait ms"}, "settle": {"wait"}, "seconds": {"ms wait"},
	"average": {"stats"}, "mean": {"stats"}, "median": {"stats"}, "deviation": {"stats"}, "statistic": {"stats"},
	"link": {"url"}, "query": {"url"}, "hostname": {"url"}, "domain": {"url"},
	"random": {"random choice"}, "pick": {"random choice"}, "choose": {"random choice"}, "shuffle": {"random"},
	"code": {"status http"}, "404": {"http status"}, "500": {"http status"},
	"environment": {"env"}, "platform": {"env runtime"}, "version": {"env runtime"},
	"greet": {"hello"}, "smoke": {"hello"},
	"sort": {"array operations"}, "unique": {"array"}, "dedupe": {"array unique"}, "flatten": {"array"}, "chunk": {"array"}, "list": {"array"},
	// the server
	"health": {"worker status"}, "worker": {"worker"}, "igor": {"worker"}, "restart": {"restart"}, "reboot": {"restart"},
	"markdown": {"plan read"}, "readme": {"plan read markdown"}, "plan": {"plan read"},
	"backup": {"snapshot"}, "back": {"snapshot"}, "checkpoint": {"snapshot"}, "undo": {"rollback"}, "revert": {"rollback"}, "restore": {"rollback"},
	"happen": {"events recent"}, "recently": {"recent events"}, "log": {"events"}, "history": {"events recent"},
	"parallel": {"swarm"}, "concurrent": {"swarm parallel"}, "batch": {"swarm"}, "combine": {"reduce swarm"},
	"fan": {"swarm map"}, "once": {"swarm parallel"}, "many": {"swarm"},
	"team": {"squad"}, "group": {"squad"}, "share": {"squad context shared"},
	"reload": {"reload"}, "refresh": {"reload"},
	"write": {"create dynamic"}, "new": {"create"}, "custom": {"dynamic create"}, "typescript": {"dynamic"},
	"remove": {"delete"},
	// files
	"executable": {"chmod mode"}, "permission": {"chmod mode"}, "grep": {"search content"}, "word": {"content search"},
	"cache": {"redis"}, "clear": {"flush"}, "wipe": {"flush"}, "postgresql": {"postgres pg"}, "rows": {"seed query"},
	"form": {"fill"}, "finished": {"status state"}, "doing": {"status"}, "delegate": {"agent"}, "queue": {"submit job"}, "calls": {"network requests"}, "asking": {"intent analyze"}, "really": {"intent"},
	"folder": {"directory"}, "disk": {"file"}, "extract": {"unzip"}, "unpack": {"unzip"}, "archive": {"zip"},
	// tools still to come keep their words here, so that queries find them as they arrive
	"screenshot": {"browser screenshot"}, "screen": {"browser screenshot"}, "click": {"browser click"},
	"page": {"browser"}, "website": {"browser url"}, "sql": {"database query"}, "postgres": {"database"},
	"request": {"http request"}, "api": {"http request"}, "endpoint": {"http request"},
	"fetch": {"http request"}, "download": {"http request"},
}
