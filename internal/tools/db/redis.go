package db

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/redis/go-redis/v9"
)

const redisGroup = "Redis"

type redisConn = conn[*redis.Client]

// Bounds of reading keys and collections.
const (
	defaultKeysLimit = 1000
	maxKeysLimit     = 100_000
	// collectionLimit bounds the members of a list, set or sorted set that
	// db_redis_get returns.
	collectionLimit = 1000
)

// quiet drops go-redis's own log lines (dial retries and the like): the
// tools report failures in their results, and an Igor's stderr is the
// front's log.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quiet{}) }

func redisTools() []tool.Tool {
	return []tool.Tool{redisConnect(), redisGet(), redisSet(), redisDel(), redisKeys(), redisFlush(), redisHash(), redisDisconnect()}
}

func redisLookup(call *tool.Call, alias string) (*redisConn, error) {
	return lookup[*redis.Client](call, tool.KindRedis, alias, "db_redis_connect")
}

// redisErr explains a Redis error.
func redisErr(c *redisConn, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	var re redis.Error
	if errors.As(err, &re) {
		return tool.Errorf(tool.CodeQueryError, "%s: %s", c.label, c.red.String(err.Error()))
	}
	return lostError(connError(c.red, c.label, err))
}

func redisConnect() tool.Tool {
	type args struct {
		URL      string `json:"url"`
		Host     string `json:"host"`
		Port     int    `json:"port"`
		Password string `json:"password"`
		DB       *int   `json:"db"`
		Alias    string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_connect", redisGroup, "Connect to Redis and keep the client under an alias. Give url (redis://:password@host:6379/0, rediss:// for TLS) or the parts. "+
			"Returns {alias, addr, db, server}.", false,
			schema.Object(
				schema.String("url", "redis://[user:password@]host:port/db; the parts below override it"),
				schema.String("host", "Host (default localhost)"),
				schema.Integer("port", "Port (default 6379)").Min(1).Max(65535),
				schema.String("password", "Password (kept only in the connection, never shown)"),
				schema.Integer("db", "Database number (default 0)").Min(0),
				aliasArg("Redis"),
			)).
			WithPhrases("redis-cli", "connect to cache", "redis url", "rediss tls", "connect to redis", "valkey", "key value server connection"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("database tools"); err != nil {
				return nil, err
			}
			alias := aliasOf(in.Alias)
			red := redact.New(in.Password)
			opt := &redis.Options{Addr: "localhost:6379"}
			if in.URL != "" {
				var err error
				if opt, err = redis.ParseURL(in.URL); err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %s; write redis://:password@host:6379/0", red.String(redact.URLs(err.Error())))
				}
				red.Add(opt.Password)
			}
			host, port, _ := splitHostPort(opt.Addr)
			if in.Host != "" {
				host = in.Host
			}
			if in.Port != 0 {
				port = strconv.Itoa(in.Port)
			}
			opt.Addr = host + ":" + port
			if in.Password != "" {
				opt.Password = in.Password
			}
			if in.DB != nil {
				opt.DB = *in.DB
			}
			if opt.DialTimeout <= 0 || opt.DialTimeout > connectTimeout {
				opt.DialTimeout = connectTimeout // dial_timeout in the URL may shorten it
			}
			opt.MaxRetries = 1
			opt.DialerRetries = 1 // one try: a refused address answers at once
			label := fmt.Sprintf("Redis %s/%d", opt.Addr, opt.DB)
			client := redis.NewClient(opt)
			cctx, cancel := context.WithTimeout(ctx, connectTimeout)
			defer cancel()
			info, err := client.Info(cctx, "server").Result()
			if err != nil {
				client.Close()
				if strings.Contains(err.Error(), "DB index is out of range") {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"db\": %s has no database %d (ERR DB index is out of range); its databases are numbered from 0 to its 'databases' setting less one (16 by default: 0 to 15)", opt.Addr, opt.DB)
				}
				return nil, connError(red, label, err)
			}
			version := ""
			for _, line := range splitLines(info) {
				if v, ok := cutPrefix(line, "redis_version:"); ok {
					version = v
				}
			}
			_, replaced := call.Resources.Get(tool.KindRedis, alias)
			call.Resources.Put(tool.KindRedis, alias, &redisConn{c: client, red: red, label: label}, client.Close)
			out := map[string]any{"alias": alias, "addr": opt.Addr, "db": opt.DB, "server": "Redis " + version}
			if replaced {
				out["replaced"] = true // the alias's earlier connection was closed
			}
			return out, nil
		}),
	}
}

func redisGet() tool.Tool {
	type args struct {
		Key   string `json:"key"`
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_get", redisGroup, "Read a key of any type. Returns {key, exists, type, value, ttl}: a string as text, a hash as an object, "+
			"a list or set as an array, a sorted set as [{member, score}] (a hash or collection at most 1000 members, with a note); ttl in seconds, -1 for none. "+
			"When any of it is not UTF-8, encoding: base64 says every string of the value is in base64.", false,
			schema.Object(schema.String("key", "The key").Required(), aliasArg("Redis"))).
			WithPhrases("peek at cache", "read cache key", "redis lookup", "cache entry value", "key ttl", "list or set members", "what is in the cache", "get redis key", "lrange smembers", "what is stored under a key"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := redisLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			r := c.c
			typ, err := r.Type(ctx, in.Key).Result()
			if err != nil {
				return nil, redisErr(c, err)
			}
			if typ == "none" {
				return map[string]any{"key": in.Key, "exists": false}, nil
			}
			out := map[string]any{"key": in.Key, "exists": true, "type": typ}
			var v any
			switch typ {
			case "string":
				if n, _ := r.StrLen(ctx, in.Key).Result(); n > maxResultBytes {
					v, err = r.GetRange(ctx, in.Key, 0, maxResultBytes-1).Result()
					out["note"] = fmt.Sprintf("the first %d of the value's %d bytes (the most one answer carries)", maxResultBytes, n)
				} else {
					v, err = r.Get(ctx, in.Key).Result()
				}
			case "hash":
				var note string
				v, note, err = hashFields(ctx, r, in.Key)
				if note != "" {
					out["note"] = note
				}
			case "list":
				v, err = r.LRange(ctx, in.Key, 0, collectionLimit-1).Result()
				if n, _ := r.LLen(ctx, in.Key).Result(); n > collectionLimit {
					out["note"] = fmt.Sprintf("the first %d of %d items", collectionLimit, n)
				}
			case "set":
				var members []string
				var cursor uint64
				members, cursor, err = r.SScan(ctx, in.Key, 0, "", collectionLimit).Result()
				if cursor != 0 {
					out["note"] = fmt.Sprintf("some of the members (at most about %d)", collectionLimit)
				}
				v = members
			case "zset":
				var zs []redis.Z
				zs, err = r.ZRangeWithScores(ctx, in.Key, 0, collectionLimit-1).Result()
				members := make([]map[string]any, len(zs))
				for i, z := range zs {
					members[i] = map[string]any{"member": z.Member, "score": z.Score}
				}
				v = members
				if n, _ := r.ZCard(ctx, in.Key).Result(); n > collectionLimit {
					out["note"] = fmt.Sprintf("the first %d of %d members, by score", collectionLimit, n)
				}
			default:
				out["note"] = "values of type " + typ + " are not read by this tool"
			}
			if err != nil && !errors.Is(err, redis.Nil) {
				return nil, redisErr(c, err)
			}
			if enc, ok := notText(v); ok {
				v, out["encoding"] = enc, "base64"
			}
			out["value"] = v
			ttl, err := r.TTL(ctx, in.Key).Result()
			if err != nil {
				return nil, redisErr(c, err)
			}
			out["ttl"] = ttlSeconds(ttl)
			return out, nil
		}),
	}
}

// notText is v (a string, a list or set of them, a hash, a sorted set's
// members) with every string in base64, when one of them is not UTF-8:
// such bytes would come back as U+FFFD and be lost. Then all are encoded,
// so that a client decodes one way (encoding: base64, as for a string).
func notText(v any) (any, bool) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return b64(v), true
		}
	case []string:
		if slices.ContainsFunc(v, func(s string) bool { return !utf8.ValidString(s) }) {
			out := make([]string, len(v))
			for i, s := range v {
				out[i] = b64(s)
			}
			return out, true
		}
	case map[string]string:
		bad := false
		for k, x := range v {
			bad = bad || !utf8.ValidString(k) || !utf8.ValidString(x)
		}
		if bad {
			out := make(map[string]string, len(v))
			for k, x := range v {
				out[b64(k)] = b64(x)
			}
			return out, true
		}
	case []map[string]any:
		if slices.ContainsFunc(v, func(m map[string]any) bool { s, _ := m["member"].(string); return !utf8.ValidString(s) }) {
			out := make([]map[string]any, len(v))
			for i, m := range v {
				s, _ := m["member"].(string)
				out[i] = map[string]any{"member": b64(s), "score": m["score"]}
			}
			return out, true
		}
	}
	return v, false
}

// hashFields reads a hash: all of it with HGETALL up to collectionLimit
// fields, else about that many with HSCAN and a note saying how many
// there are (a hash of millions of fields would flood the answer and the
// worker's memory).
func hashFields(ctx context.Context, r *redis.Client, key string) (map[string]string, string, error) {
	n, err := r.HLen(ctx, key).Result()
	if err != nil {
		return nil, "", err
	}
	if n <= collectionLimit {
		m, err := r.HGetAll(ctx, key).Result()
		return m, "", err
	}
	m := make(map[string]string, collectionLimit)
	var cursor uint64
	for len(m) < collectionLimit {
		var kv []string
		kv, cursor, err = r.HScan(ctx, key, cursor, "", 500).Result()
		if err != nil {
			return nil, "", err
		}
		for i := 0; i+1 < len(kv) && len(m) < collectionLimit; i += 2 {
			m[kv[i]] = kv[i+1]
		}
		if cursor == 0 {
			break
		}
	}
	return m, fmt.Sprintf("%d of the hash's %d fields (read any one with db_redis_hash action get)", len(m), n), nil
}

// sortedFieldNames returns a hash's field names, sorted.
func sortedFieldNames(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// ttlSeconds turns go-redis's TTL (-1 ns: none, -2 ns: no key) into seconds.
func ttlSeconds(d time.Duration) int64 {
	if d < 0 {
		return int64(d)
	}
	return int64(d / time.Second)
}

// redisText is a value as Redis stores it: a string as it is, any other
// JSON value as its JSON text (5 as "5", {"a":1} as {"a":1}).
func redisText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func redisSet() tool.Tool {
	type args struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
		TTL   int64  `json:"ttl"`
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_set", redisGroup, "Set a string key (a value that is not a string is stored as its JSON), with an optional expiry. Returns {key, ttl}.", true,
			schema.Object(
				schema.String("key", "The key").Required(),
				schema.Any("value", "The value: a string, or any JSON value (stored as JSON text)").Required(),
				schema.Integer("ttl", "Seconds until the key expires (0: never)").Default(0).Min(0),
				aliasArg("Redis"),
			)).
			WithPhrases("seed cache key", "write cache key", "setex", "store value with expiry", "put k/v", "cache a value", "save value in redis", "set a key with ttl", "turn on a feature flag key", "set a key that expires in seconds"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := redisLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			if err := c.c.Set(ctx, in.Key, redisText(in.Value), time.Duration(in.TTL)*time.Second).Err(); err != nil {
				return nil, redisErr(c, err)
			}
			ttl := in.TTL
			if ttl == 0 {
				ttl = -1
			}
			return map[string]any{"key": in.Key, "ttl": ttl}, nil
		}),
	}
}

func redisDel() tool.Tool {
	type args struct {
		Keys  []string `json:"keys"`
		Alias string   `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_del", redisGroup, "Delete keys. Returns {deleted} (how many existed).", true,
			schema.Object(schema.Array("keys", "Keys to delete", schema.StringItems()).Required().Min(1), aliasArg("Redis"))).
			WithPhrases("drop a single key", "delete cache key", "evict key", "invalidate cache entry", "remove redis keys", "unlink key", "delete keys", "clear the cached entry"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := redisLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			n, err := c.c.Del(ctx, in.Keys...).Result()
			if err != nil {
				return nil, redisErr(c, err)
			}
			return map[string]any{"deleted": n}, nil
		}),
	}
}

func redisKeys() tool.Tool {
	type args struct {
		Pattern string `json:"pattern"`
		Type    string `json:"type"`
		Limit   int    `json:"limit"`
		Alias   string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_keys", redisGroup, "List keys matching a glob pattern, with SCAN (never KEYS, which blocks the server). Returns {keys, count, truncated}, with a note when more keys match.", false,
			schema.Object(
				schema.String("pattern", "Glob: * any, ? one character, [ab] a set").Default("*"),
				schema.String("type", "Only keys of this type").Enum("string", "hash", "list", "set", "zset", "stream"),
				schema.Integer("limit", "Most keys returned").Default(defaultKeysLimit).Min(1).Max(maxKeysLimit),
				aliasArg("Redis"),
			)).
			WithPhrases("redis SCAN", "find keys by pattern", "list cache keys", "redis keys *", "key glob", "which keys exist", "keys with a prefix", "list all keys", "keys that start with a prefix"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := redisLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			if in.Pattern == "" {
				in.Pattern = "*"
			}
			if in.Limit <= 0 {
				in.Limit = defaultKeysLimit
			}
			keys := []string{}
			seen := map[string]bool{} // SCAN may return a key twice
			var cursor uint64
			truncated := false
			for {
				var batch []string
				batch, cursor, err = c.c.ScanType(ctx, cursor, in.Pattern, 500, in.Type).Result()
				if err != nil {
					return nil, redisErr(c, err)
				}
				for _, k := range batch {
					if seen[k] {
						continue
					}
					if len(keys) == in.Limit {
						truncated = true
						break
					}
					seen[k] = true
					keys = append(keys, k)
				}
				if cursor == 0 || truncated {
					break
				}
			}
			out := map[string]any{"keys": keys, "count": len(keys), "truncated": truncated}
			if truncated {
				out["note"] = fmt.Sprintf("more keys match: these are the first %d SCAN met, in no particular order; narrow the pattern or type, or raise limit (up to %d)", in.Limit, maxKeysLimit)
			}
			return out, nil
		}),
	}
}

func redisFlush() tool.Tool {
	type args struct {
		Confirm bool   `json:"confirm"`
		Alias   string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_flush", redisGroup, "Delete every key of the connection's database (FLUSHDB; other databases are untouched). Needs confirm: true. Returns {flushed, keys}.", true,
			schema.Object(schema.Boolean("confirm", "Must be true: this deletes all the keys").Required(), aliasArg("Redis"))).
			WithPhrases("clean redis slate", "clear cache", "wipe redis", "empty redis database", "reset cache between tests", "flush all keys", "clear redis", "clear the whole cache"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := redisLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			if !in.Confirm {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"confirm\": db_redis_flush deletes every key of %s; pass confirm: true to do it", c.label)
			}
			n, err := c.c.DBSize(ctx).Result()
			if err != nil {
				return nil, redisErr(c, err)
			}
			if err := c.c.FlushDB(ctx).Err(); err != nil {
				return nil, redisErr(c, err)
			}
			return map[string]any{"flushed": true, "keys": n}, nil
		}),
	}
}

func redisHash() tool.Tool {
	type args struct {
		Action string         `json:"action"`
		Key    string         `json:"key"`
		Field  string         `json:"field"`
		Value  any            `json:"value"`
		Fields map[string]any `json:"fields"`
		Alias  string         `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_hash", redisGroup, "Hash operations on key: get {field} → value; set {field, value} or {fields} → added; getall → object; "+
			"del {field} → deleted; exists {field} → exists; keys → field names. getall and keys return at most 1000 fields, with a note past that.", true,
			schema.Object(
				schema.String("action", "What to do").Enum("get", "set", "getall", "del", "exists", "keys").Required(),
				schema.String("key", "The hash's key").Required(),
				schema.String("field", "A field (get, set, del, exists)"),
				schema.Any("value", "The field's value (set): a string, or any JSON value (stored as JSON text)"),
				schema.Map("fields", "Several fields to set at once: name → value (set; a value that is not a string is stored as its JSON)"),
				aliasArg("Redis"),
			)).
			WithPhrases("HSET", "HGET", "HGETALL", "HDEL", "HKEYS", "redis hash field", "hash map in redis", "object stored as hash"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			c, err := redisLookup(call, in.Alias)
			if err != nil {
				return nil, err
			}
			needField := func() error {
				if in.Field == "" {
					return tool.Errorf(tool.CodeInvalidArgs, "argument \"field\": action %s needs a field", in.Action)
				}
				return nil
			}
			r := c.c
			var out map[string]any
			switch in.Action {
			case "get":
				if err := needField(); err != nil {
					return nil, err
				}
				v, gerr := r.HGet(ctx, in.Key, in.Field).Result()
				if errors.Is(gerr, redis.Nil) {
					return map[string]any{"key": in.Key, "field": in.Field, "exists": false}, nil
				}
				err, out = gerr, map[string]any{"key": in.Key, "field": in.Field, "exists": true, "value": v}
				if enc, ok := notText(v); ok {
					out["value"], out["encoding"] = enc, "base64"
				}
			case "set":
				vals := map[string]any{}
				for k, v := range in.Fields {
					vals[k] = redisText(v)
				}
				if in.Field != "" {
					if in.Value == nil {
						return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"value\": action set with a field needs its value")
					}
					vals[in.Field] = redisText(in.Value)
				}
				if len(vals) == 0 {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "action set needs field and value, or fields")
				}
				var n int64
				n, err = r.HSet(ctx, in.Key, vals).Result()
				out = map[string]any{"key": in.Key, "added": n, "set": len(vals)}
			case "getall":
				var m map[string]string
				var note string
				m, note, err = hashFields(ctx, r, in.Key)
				out = map[string]any{"key": in.Key, "fields": m, "count": len(m)}
				if enc, ok := notText(m); ok {
					out["fields"], out["encoding"] = enc, "base64"
				}
				if note != "" {
					out["note"], out["truncated"] = note, true
				}
			case "del":
				if err := needField(); err != nil {
					return nil, err
				}
				var n int64
				n, err = r.HDel(ctx, in.Key, in.Field).Result()
				out = map[string]any{"key": in.Key, "field": in.Field, "deleted": n == 1}
			case "exists":
				if err := needField(); err != nil {
					return nil, err
				}
				var ok bool
				ok, err = r.HExists(ctx, in.Key, in.Field).Result()
				out = map[string]any{"key": in.Key, "field": in.Field, "exists": ok}
			case "keys":
				var m map[string]string
				var note string
				m, note, err = hashFields(ctx, r, in.Key)
				ks := sortedFieldNames(m)
				out = map[string]any{"key": in.Key, "fields": ks, "count": len(ks)}
				if note != "" {
					out["note"], out["truncated"] = note, true
				}
			}
			if err != nil {
				e := redisErr(c, err)
				if strings.Contains(err.Error(), "WRONGTYPE") {
					if typ, terr := r.Type(ctx, in.Key).Result(); terr == nil {
						te := tool.AsError(e)
						te.Message += fmt.Sprintf(" (%q is a %s, not a hash; db_redis_get reads a key of any type)", in.Key, typ)
						return nil, te
					}
				}
				return nil, e
			}
			return out, nil
		}),
	}
}

func redisDisconnect() tool.Tool {
	type args struct {
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("db_redis_disconnect", redisGroup, "Close a Redis connection. Returns {alias, closed}.", false,
			schema.Object(aliasArg("Redis"))).
			WithPhrases("close redis", "redis quit", "end redis connection", "drop redis client", "disconnect cache"),
		Run: tool.Typed(func(_ context.Context, in args, call *tool.Call) (any, error) {
			return disconnect(call, tool.KindRedis, in.Alias, "db_redis_connect")
		}),
	}
}
