package db

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"github.com/redis/go-redis/v9"
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
	// Values that are not strings are stored as their JSON, as db_redis_set does.
	s.MustRun("db_redis_hash", `{"alias":"cache","action":"set","key":"nums","fields":{"n":2,"ok":true,"tags":["a"]}}`)
	s.MustRun("db_redis_hash", `{"alias":"cache","action":"set","key":"nums","field":"pi","value":3.5}`)
	tooltest.WantJSON(t, "hgetall of JSON values", s.MustRun("db_redis_hash", `{"alias":"cache","action":"getall","key":"nums"}`),
		`{"key":"nums","fields":{"n":"2","ok":"true","tags":"[\"a\"]","pi":"3.5"},"count":4}`)
	s.MustRun("db_redis_del", `{"alias":"cache","keys":["nums"]}`)
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
	if !strings.Contains(e.Message, "WRONGTYPE") || !strings.Contains(e.Message, `"greeting" is a string, not a hash`) {
		t.Errorf("wrong type: %s", e.Message)
	}

	for i := range 30 {
		s.MustRun("db_redis_set", fmt.Sprintf(`{"alias":"cache","key":"k:%02d","value":"v"}`, i))
	}
	if got = tooltest.Object(t, s.MustRun("db_redis_keys", `{"alias":"cache","pattern":"k:*"}`)); got["count"] != float64(30) || got["truncated"] != false {
		t.Errorf("keys: %v", got)
	}
	if got = tooltest.Object(t, s.MustRun("db_redis_keys", `{"alias":"cache","pattern":"k:*","limit":7}`)); got["count"] != float64(7) || got["truncated"] != true || !strings.Contains(fmt.Sprint(got["note"]), "raise limit") {
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
	// A database the server does not have is a wrong argument, not a lost server.
	e = s.MustFail("db_redis_connect", fmt.Sprintf(`{"host":"127.0.0.1","port":%d,"password":%q,"db":99}`, rdb.Port(), testsrv.Password), tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, `argument "db"`) || !strings.Contains(e.Message, "no database 99") || !strings.Contains(e.Message, "0 to 15") {
		t.Errorf("db out of range: %s", e.Message)
	}
	e = s.MustFail("db_redis_connect", `{"url":"http://:`+wrong+`@h/0"}`, tool.CodeInvalidArgs)
	if strings.Contains(e.Message, wrong) {
		t.Errorf("bad url: %s", e.Message)
	}
}

// db_redis_keys walks the keys with SCAN: the server counts SCAN calls and
// no KEYS, even for more keys than one SCAN batch holds.
func TestRedisKeysUsesScanNotKeys(t *testing.T) {
	own, err := testsrv.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_redis_connect", fmt.Sprintf(`{"url":%q}`, own.URL))
	opt, err := redis.ParseURL(own.URL)
	if err != nil {
		t.Fatal(err)
	}
	direct := redis.NewClient(opt)
	defer direct.Close()
	ctx := context.Background()
	pipe := direct.Pipeline()
	for i := range 1200 {
		pipe.Set(ctx, fmt.Sprintf("k:%d", i), i, 0)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if err := direct.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	got := tooltest.Object(t, s.MustRun("db_redis_keys", `{"pattern":"k:*","limit":100000}`))
	if got["count"] != float64(1200) || got["truncated"] != false {
		t.Errorf("keys: count %v truncated %v", got["count"], got["truncated"])
	}
	stats, err := direct.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stats, "cmdstat_scan:") || strings.Contains(stats, "cmdstat_keys:") {
		t.Errorf("want SCAN and no KEYS:\n%s", stats)
	}
}

// A Redis server stopped mid-session: CONNECTION_FAILED saying the alias
// stays, and once the server is back the same alias works again.
func TestRedisReconnectsAfterARestart(t *testing.T) {
	t.Parallel()
	own, err := testsrv.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_redis_connect", fmt.Sprintf(`{"url":%q,"alias":"r"}`, own.URL))
	s.MustRun("db_redis_set", `{"alias":"r","key":"a","value":"1"}`)
	if err := own.Stop(); err != nil {
		t.Fatal(err)
	}
	e := s.MustFail("db_redis_get", `{"alias":"r","key":"a"}`, tool.CodeConnectionFailed)
	if strings.Contains(e.Message, testsrv.Password) || !strings.Contains(e.Message, "reconnects") {
		t.Errorf("server stopped: %s", e.Message)
	}
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	got := tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"r","key":"a"}`))
	if got["exists"] != false { // no persistence: the restarted server is empty
		t.Errorf("after the restart: %v", got)
	}
}

// A hash or sorted set larger than 1000 members, or a string over 16 MiB,
// comes back cut, with a note giving its size, never whole.
func TestRedisLargeCollectionsAreCut(t *testing.T) {
	t.Parallel()
	s := redisSession(t, 4)
	opt, err := redis.ParseURL(rdb.URL)
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = 4
	direct := redis.NewClient(opt)
	defer direct.Close()
	ctx := context.Background()
	fields := map[string]any{}
	var members []redis.Z
	for i := range 1500 {
		fields[fmt.Sprintf("f%d", i)] = i
		members = append(members, redis.Z{Score: float64(i), Member: fmt.Sprint(i)})
	}
	if err := direct.HSet(ctx, "big", fields).Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.ZAdd(ctx, "rank", members...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.Set(ctx, "huge", strings.Repeat("x", 17<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	got := tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"huge"}`))
	if len(got["value"].(string)) != 16<<20 || !strings.Contains(fmt.Sprint(got["note"]), "of the value's 17825792 bytes") {
		t.Errorf("get huge: %d bytes, note %v", len(got["value"].(string)), got["note"])
	}
	got = tooltest.Object(t, s.MustRun("db_redis_hash", `{"alias":"cache","action":"getall","key":"big"}`))
	if got["count"] != float64(1000) || got["truncated"] != true || !strings.Contains(fmt.Sprint(got["note"]), "of the hash's 1500 fields") {
		t.Errorf("getall: count %v truncated %v note %v", got["count"], got["truncated"], got["note"])
	}
	got = tooltest.Object(t, s.MustRun("db_redis_hash", `{"alias":"cache","action":"keys","key":"big"}`))
	if got["count"] != float64(1000) || got["truncated"] != true {
		t.Errorf("keys: count %v truncated %v", got["count"], got["truncated"])
	}
	got = tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"big"}`))
	if len(got["value"].(map[string]any)) != 1000 || !strings.Contains(fmt.Sprint(got["note"]), "1500") {
		t.Errorf("get hash: %d fields, note %v", len(got["value"].(map[string]any)), got["note"])
	}
	got = tooltest.Object(t, s.MustRun("db_redis_get", `{"alias":"cache","key":"rank"}`))
	if len(got["value"].([]any)) != 1000 || !strings.Contains(fmt.Sprint(got["note"]), "of 1500") {
		t.Errorf("get zset: %d members, note %v", len(got["value"].([]any)), got["note"])
	}
}

// Values come back as JSON a client can use: a sorted set as {member,
// score} pairs (not go-redis's Member and Score), a string that is not
// UTF-8 as base64 (not U+FFFD in place of its bytes).
func TestRedisGetShapes(t *testing.T) {
	t.Parallel()
	s := redisSession(t, 7)
	opt, err := redis.ParseURL(rdb.URL)
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = 7
	direct := redis.NewClient(opt)
	defer direct.Close()
	ctx := context.Background()
	if err := direct.ZAdd(ctx, "z", redis.Z{Score: 2, Member: "b"}, redis.Z{Score: 1.5, Member: "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.Set(ctx, "bin", "\xff\x00\xfe", 0).Err(); err != nil {
		t.Fatal(err)
	}
	tooltest.WantJSON(t, "zset", s.MustRun("db_redis_get", `{"alias":"cache","key":"z"}`),
		`{"key":"z","exists":true,"type":"zset","ttl":-1,"value":[{"member":"a","score":1.5},{"member":"b","score":2}]}`)
	tooltest.WantJSON(t, "binary string", s.MustRun("db_redis_get", `{"alias":"cache","key":"bin"}`),
		`{"key":"bin","exists":true,"type":"string","ttl":-1,"value":"/wD+","encoding":"base64"}`)
	// Members of collections that are not UTF-8 come back whole too: every
	// member in base64, as a string is (they were U+FFFD).
	if err := direct.HSet(ctx, "h", "f\xff", "ok", "g", "\xfe").Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.RPush(ctx, "l", "a", "\xff").Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.SAdd(ctx, "s", "\xff").Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.ZAdd(ctx, "zb", redis.Z{Score: 1, Member: "\xff"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := direct.RPush(ctx, "text", "a", "é").Err(); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"h":    `{"key":"h","exists":true,"type":"hash","ttl":-1,"value":{"Zv8=":"b2s=","Zw==":"/g=="},"encoding":"base64"}`,
		"l":    `{"key":"l","exists":true,"type":"list","ttl":-1,"value":["YQ==","/w=="],"encoding":"base64"}`,
		"s":    `{"key":"s","exists":true,"type":"set","ttl":-1,"value":["/w=="],"encoding":"base64"}`,
		"zb":   `{"key":"zb","exists":true,"type":"zset","ttl":-1,"value":[{"member":"/w==","score":1}],"encoding":"base64"}`,
		"text": `{"key":"text","exists":true,"type":"list","ttl":-1,"value":["a","é"]}`,
	} {
		tooltest.WantJSON(t, key, s.MustRun("db_redis_get", `{"alias":"cache","key":"`+key+`"}`), want)
	}
	tooltest.WantJSON(t, "hash getall", s.MustRun("db_redis_hash", `{"alias":"cache","action":"getall","key":"h"}`),
		`{"key":"h","fields":{"Zv8=":"b2s=","Zw==":"/g=="},"count":2,"encoding":"base64"}`)
	tooltest.WantJSON(t, "hash get", s.MustRun("db_redis_hash", `{"alias":"cache","action":"get","key":"h","field":"g"}`),
		`{"key":"h","field":"g","exists":true,"value":"/g==","encoding":"base64"}`)
}
