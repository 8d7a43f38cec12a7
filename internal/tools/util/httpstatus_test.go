package util

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestHTTPStatusInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code int
		want string
	}{
		{200, `{"code":200,"name":"OK","category":"success","retryable":false,"registered":true,"rfc":"RFC 9110, Section 15.3.1",
			"description":"The request succeeded; the body holds the result."}`},
		{404, `{"code":404,"name":"Not Found","category":"clientError","retryable":false,"registered":true,"rfc":"RFC 9110, Section 15.5.5",
			"description":"The server has no resource at this URL (or will not reveal that it has)."}`},
		{301, `{"code":301,"name":"Moved Permanently","category":"redirection","retryable":false,"registered":true,"rfc":"RFC 9110, Section 15.4.2",
			"description":"The resource has a new permanent URL, given in Location; clients may change POST to GET when following it."}`},
		{101, `{"code":101,"name":"Switching Protocols","category":"informational","retryable":false,"registered":true,"rfc":"RFC 9110, Section 15.2.2",
			"description":"The server is switching to the protocol named in the Upgrade header, as for a WebSocket handshake."}`},
		{503, `{"code":503,"name":"Service Unavailable","category":"serverError","retryable":true,"registered":true,"rfc":"RFC 9110, Section 15.6.4",
			"description":"The server is temporarily overloaded or down for maintenance; Retry-After may say when to retry."}`},
		{422, `{"code":422,"name":"Unprocessable Content","alsoKnownAs":["Unprocessable Entity"],"category":"clientError","retryable":false,
			"registered":true,"rfc":"RFC 9110, Section 15.5.21",
			"description":"The request is well-formed but semantically invalid, such as failing validation of its fields."}`},
		{429, `{"code":429,"name":"Too Many Requests","category":"clientError","retryable":true,"registered":true,"rfc":"RFC 6585, Section 4",
			"description":"The client is rate limited; wait (see Retry-After) before retrying."}`},
		{451, `{"code":451,"name":"Unavailable For Legal Reasons","category":"clientError","retryable":false,"registered":true,"rfc":"RFC 7725, Section 3",
			"description":"The resource is withheld for legal reasons, such as a court order or government censorship."}`},
		// Unregistered codes in range: name Unknown, category from the class.
		{299, `{"code":299,"name":"Unknown","category":"success","retryable":false,"registered":false,"rfc":"",
			"description":"Not a registered status code. The request was received, understood and accepted."}`},
		{599, `{"code":599,"name":"Unknown","category":"serverError","retryable":false,"registered":false,"rfc":"",
			"description":"Not a registered status code. The server failed to fulfil an apparently valid request."}`},
	} {
		tooltest.WantJSON(t, fmt.Sprint("http_status_info ", tc.code), run(t, "http_status_info", fmt.Sprintf(`{"code":%d}`, tc.code)), tc.want)
	}
}

func TestHTTPStatusInfoSpecialCodes(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]string{
		418: `{"name":"I'm a teapot","category":"clientError","registered":true,"retryable":false}`,
		425: `{"name":"Too Early","retryable":true,"rfc":"RFC 8470, Section 5.2"}`,
		413: `{"name":"Content Too Large","alsoKnownAs":["Payload Too Large","Request Entity Too Large"]}`,
		408: `{"name":"Request Timeout","retryable":true}`,
		501: `{"name":"Not Implemented","retryable":false}`,
		100: `{"category":"informational"}`,
		404: `{"code":404,"name":"Not Found"}`,
	} {
		// Written as 404.0, which is an integer in JSON Schema terms.
		subset(t, fmt.Sprint(code), run(t, "http_status_info", fmt.Sprintf(`{"code":%d.0}`, code)), want)
	}
}

// TestHTTPStatusInfoAllCodes checks every code in range: retryable is
// exactly the documented set, every registered code is described, and the
// table knows every code Go's net/http knows.
func TestHTTPStatusInfoAllCodes(t *testing.T) {
	t.Parallel()
	retry := map[int]bool{408: true, 425: true, 429: true, 500: true, 502: true, 503: true, 504: true}
	cats := map[int]string{1: "informational", 2: "success", 3: "redirection", 4: "clientError", 5: "serverError"}
	for code := 100; code <= 599; code++ {
		got := run(t, "http_status_info", fmt.Sprintf(`{"code":%d}`, code))
		if got["retryable"] != retry[code] {
			t.Errorf("%d: retryable = %v", code, got["retryable"])
		}
		if got["category"] != cats[code/100] {
			t.Errorf("%d: category = %v, want %s", code, got["category"], cats[code/100])
		}
		if got["description"] == "" {
			t.Errorf("%d: no description", code)
		}
		registered := got["registered"] == true
		if registered && (got["name"] == "Unknown" || got["rfc"] == "") {
			t.Errorf("%d: registered but name %v, rfc %v", code, got["name"], got["rfc"])
		}
		if http.StatusText(code) != "" && !registered {
			t.Errorf("%d (%s): net/http knows it, the table does not", code, http.StatusText(code))
		}
	}
}

func TestHTTPStatusInfoBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"http_status_info", `{}`, []string{`"code"`, "required"}},
		{"http_status_info", `{"code":99}`, []string{`"code"`, ">= 100"}},
		{"http_status_info", `{"code":600}`, []string{`"code"`, "<= 599"}},
		{"http_status_info", `{"code":"404"}`, []string{`"code"`, "expected integer"}},
		{"http_status_info", `{"code":404.5}`, []string{`"code"`, "expected integer"}},
	})
}
