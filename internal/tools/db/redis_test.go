package db

import (
	"fmt"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsrv"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// redisSession connects to a database number of the test's own.
func redisSession(t *testing.T, db int) *tooltest.Session {
	t.Helper()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_redis_connect", fmt.Sprintf(`{"host":"127.0.0.1","port":%d,"password":%q,"db":%d,"alias":"cache"}`, rdb.Port(), testsrv.Password, db))
	s.MustRun("db_redis_flush", `{"alias":"cache","confirm":true}`)
	return s
}

func TestRedis(t *testing.T) {
	t.Parallel()
	s := redisSession(t, 1)
	s.MustRun("db_redis_set", `{"alias":"cache","key":"greeting","value":"hello","ttl":100}`)
	s.MustRun("db_redis_set", `{"alias":"cache","key":"obj","value":{"a":[1,2]}}`)
	got := tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"greeting"}`))
	if got["value"] != "hello" || got["type"] != "string" || got["ttl"].(float64) < 90 || got["ttl"].(float64) > 100 {
		t.Errorf("get: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"obj"}`))
	if got["value"] != `{"a":[1,2]}` || got["ttl"] != float64(-1) {
		t.Errorf("get obj: %v", got)
	}
	if got = tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"nope"}`)); got["exists"] != false {
		t.Errorf("get missing: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_redis_hash", `{"alias":"cache","action":"set","key":"user:1","fields":{"name":"Ada","role":"admin"}}`))
	if got["added"] != float64(2) {
		t.Errorf("hset: %v", got)
	}
	s.MustRun("db_redis_hash", `{"alias":"cache","action":"set","key":"user:1","field":"lang","value":"en"}`)
	tooltest.WantJSON(t, "hget", s.MustRun("db_redis_hash", `{"alias":"cache","action":"get","key":"user:1","field":"name"}`), `{"key":"user:1","field":"name","exists":true,"value":"Ada"}`)
	tooltest.WantJSON(t, "hgetall", s.MustRun("db_redis_hash", `{"alias":"cache","action":"getall","key":"user:1"}`), `{"key":"user:1","fields":{"name":"Ada","role":"admin","lang":"en"},"count":3}`)
	tooltest.WantJSON(t, "hdel", s.MustRun("db_redis_hash", `{"alias":"cache","action":"del","key":"user:1","field":"role"}`), `{"key":"user:1","field":"role","deleted":true}`)
	tooltest.WantJSON(t, "hexists", s.MustRun("db_redis_hash", `{"alias":"cache","action":"exists","key":"user:1","field":"role"}`), `{"key":"user:1","field":"role","exists":false}`)
	if got = tooltest.Object(t, s.MustRun("db_redis_hash", `{"alias":"cache","action":"keys","key":"user:1"}`)); got["count"] != float64(2) {
		t.Errorf("hkeys: %v", got)
	}
	if got = tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"user:1"}`)); got["type"] != "hash" || !strings.Contains(tooltest.Marshal(got["value"]), `"lang":"en"`) {
		t.Errorf("get hash: %v", got)
	}
	s.MustFail("db_redis_hash", `{"alias":"cache","action":"get","key":"user:1"}`, tool.CodeInvalidArgs)
	// A wrong-type operation is the server's error, said plainly.
	e := s.MustFail("db_redis_hash", `{"alias":"cache","action":"getall","key":"greeting"}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "WRONGTYPE") {
		t.Errorf("wrong type: %s", e.Message)
	}

	for i := range 30 {
		s.MustRun("db_redis_set", fmt.Sprintf(`{"alias":"cache","key":"k:%02d","value":"v"}`, i))
	}
	if got = tooltest.Object(t, s.MustRun("db_redis_keys", `{"alias":"cache","pattern":"k:*"}`)); got["count"] != float64(30) || got["truncated"] != false {
		t.Errorf("keys: %v", got)
	}
	if got = tooltest.Object(t, s.MustRun("db_redis_keys", `{"alias":"cache","pattern":"k:*","limit":7}`)); got["count"] != float64(7) || got["truncated"] != true {
		t.Errorf("keys limit: %v", got)
	}
	tooltest.WantJSON(t, "keys by type", s.MustRun("db_redis_keys", `{"alias":"cache","type":"hash"}`), `{"keys":["user:1"],"count":1,"truncated":false}`)
	tooltest.WantJSON(t, "del", s.MustRun("db_redis_del", `{"alias":"cache","keys":["k:00","k:01","nope"]}`), `{"deleted":2}`)

	e = s.MustFail("db_redis_flush", `{"alias":"cache","confirm":false}`, tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, "confirm: true") {
		t.Errorf("flush without confirm: %s", e.Message)
	}
	got = tooltest.Object(t, s.MustRun("db_redis_flush", `{"alias":"cache","confirm":true}`))
	if got["keys"] != float64(31) {
		t.Errorf("flush: %v", got)
	}
	e = s.MustFail("db_redis_get", `{"alias":"other","key":"x"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, "open: cache") {
		t.Errorf("unknown alias: %s", e.Message)
	}
	s.MustRun("db_redis_disconnect", `{"alias":"cache"}`)
}

func TestRedisCredentialsNeverShow(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	const wrong = "Wr0ng-Redis-Secret"
	for _, args := range []string{
		fmt.Sprintf(`{"url":"redis://:%s@127.0.0.1:%d/0"}`, wrong, rdb.Port()),
		fmt.Sprintf(`{"host":"127.0.0.1","port":%d,"password":%q}`, rdb.Port(), wrong),
	} {
		e := s.MustFail("db_redis_connect", args, tool.CodeConnectionFailed)
		if strings.Contains(e.Message, wrong) || !strings.Contains(e.Message, "password") {
			t.Errorf("wrong password: %s", e.Message)
		}
	}
	e := s.MustFail("db_redis_connect", fmt.Sprintf(`{"url":"redis://127.0.0.1:%d/0"}`, rdb.Port()), tool.CodeConnectionFailed)
	if !strings.Contains(e.Message, "NOAUTH") && !strings.Contains(e.Message, "auth") {
		t.Errorf("no password: %s", e.Message)
	}
	e = s.MustFail("db_redis_connect", `{"url":"redis://:`+wrong+`@127.0.0.1:1/0"}`, tool.CodeConnectionFailed)
	if strings.Contains(e.Message, wrong) || !strings.Contains(e.Message, "refused") {
		t.Errorf("refused: %s", e.Message)
	}
	e = s.MustFail("db_redis_connect", `{"url":"http://:`+wrong+`@h/0"}`, tool.CodeInvalidArgs)
	if strings.Contains(e.Message, wrong) {
		t.Errorf("bad url: %s", e.Message)
	}
}
