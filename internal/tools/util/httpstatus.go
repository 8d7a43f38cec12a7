package util

import (
	"context"
	"math"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

type statusInfo struct {
	name, rfc, description string
	alsoKnownAs            []string
}

// statuses are the codes of the IANA HTTP Status Code Registry (temporary
// and unassigned entries aside), plus 418, which RFC 9110 reserves.
var statuses = map[int]statusInfo{
	100: {"Continue", "RFC 9110, Section 15.2.1", "The server has received the request headers; the client should go on to send the body (reply to Expect: 100-continue).", nil},
	101: {"Switching Protocols", "RFC 9110, Section 15.2.2", "The server is switching to the protocol named in the Upgrade header, as for a WebSocket handshake.", nil},
	102: {"Processing", "RFC 2518, Section 10.1", "WebDAV: the server has accepted the request and is still working on it; no response is available yet.", nil},
	103: {"Early Hints", "RFC 8297", "Headers (usually Link preload hints) sent before the final response so the client can start fetching resources.", nil},

	200: {"OK", "RFC 9110, Section 15.3.1", "The request succeeded; the body holds the result.", nil},
	201: {"Created", "RFC 9110, Section 15.3.2", "The request succeeded and created a resource, usually identified by the Location header.", nil},
	202: {"Accepted", "RFC 9110, Section 15.3.3", "The request was accepted for processing, which has not finished (and may still fail).", nil},
	203: {"Non-Authoritative Information", "RFC 9110, Section 15.3.4", "The request succeeded, but a transforming proxy modified the origin server's response.", nil},
	204: {"No Content", "RFC 9110, Section 15.3.5", "The request succeeded and there is no body to return.", nil},
	205: {"Reset Content", "RFC 9110, Section 15.3.6", "The request succeeded; the client should reset the document view, such as clearing a form.", nil},
	206: {"Partial Content", "RFC 9110, Section 15.3.7", "The body holds only the byte range(s) asked for with a Range header.", nil},
	207: {"Multi-Status", "RFC 4918, Section 11.1", "WebDAV: the body is an XML document holding a separate status for each of several resources.", nil},
	208: {"Already Reported", "RFC 5842, Section 7.1", "WebDAV: members of this binding were already listed earlier in the same multistatus response.", nil},
	226: {"IM Used", "RFC 3229, Section 10.4.1", "The server fulfilled a GET with instance manipulations (such as a delta encoding) applied to the current instance.", nil},

	300: {"Multiple Choices", "RFC 9110, Section 15.4.1", "The resource has several representations; the client (or user) should choose one.", nil},
	301: {"Moved Permanently", "RFC 9110, Section 15.4.2", "The resource has a new permanent URL, given in Location; clients may change POST to GET when following it.", nil},
	302: {"Found", "RFC 9110, Section 15.4.3", "The resource is temporarily at the URL in Location; clients may change POST to GET when following it.", nil},
	303: {"See Other", "RFC 9110, Section 15.4.4", "The result is at the URL in Location and should be fetched with GET (the usual reply after a form POST).", nil},
	304: {"Not Modified", "RFC 9110, Section 15.4.5", "The cached copy is still valid (conditional request with If-None-Match or If-Modified-Since); no body is sent.", nil},
	305: {"Use Proxy", "RFC 9110, Section 15.4.6", "Deprecated: the resource had to be accessed through the proxy in Location; clients ignore it for security reasons.", nil},
	306: {"(Unused)", "RFC 9110, Section 15.4.7", "Reserved: used in an earlier draft of HTTP/1.1 and no longer used.", nil},
	307: {"Temporary Redirect", "RFC 9110, Section 15.4.8", "The resource is temporarily at the URL in Location; the client must repeat the request with the same method and body.", nil},
	308: {"Permanent Redirect", "RFC 9110, Section 15.4.9", "The resource has a new permanent URL in Location; the client must repeat the request with the same method and body.", nil},

	400: {"Bad Request", "RFC 9110, Section 15.5.1", "The server cannot process the request because it is malformed (bad syntax, invalid framing or parameters).", nil},
	401: {"Unauthorized", "RFC 9110, Section 15.5.2", "The request lacks valid authentication credentials; the WWW-Authenticate header says how to authenticate.", nil},
	402: {"Payment Required", "RFC 9110, Section 15.5.3", "Reserved for future use; some APIs use it for exhausted quotas or required payment.", nil},
	403: {"Forbidden", "RFC 9110, Section 15.5.4", "The server understood the request but refuses it; authenticating again will not help.", nil},
	404: {"Not Found", "RFC 9110, Section 15.5.5", "The server has no resource at this URL (or will not reveal that it has).", nil},
	405: {"Method Not Allowed", "RFC 9110, Section 15.5.6", "The resource does not support this method; the Allow header lists the methods it does support.", nil},
	406: {"Not Acceptable", "RFC 9110, Section 15.5.7", "No representation matches the request's Accept, Accept-Language or Accept-Encoding headers.", nil},
	407: {"Proxy Authentication Required", "RFC 9110, Section 15.5.8", "The client must authenticate with the proxy first; Proxy-Authenticate says how.", nil},
	408: {"Request Timeout", "RFC 9110, Section 15.5.9", "The server timed out waiting for the complete request; the client may repeat it.", nil},
	409: {"Conflict", "RFC 9110, Section 15.5.10", "The request conflicts with the resource's current state, such as an edit conflict or a duplicate key.", nil},
	410: {"Gone", "RFC 9110, Section 15.5.11", "The resource was deliberately removed and will not come back.", nil},
	411: {"Length Required", "RFC 9110, Section 15.5.12", "The server refuses a request body without a Content-Length header.", nil},
	412: {"Precondition Failed", "RFC 9110, Section 15.5.13", "A conditional header (If-Match, If-Unmodified-Since) evaluated to false, so the request was not applied.", nil},
	413: {"Content Too Large", "RFC 9110, Section 15.5.14", "The request body is larger than the server is willing to process.", []string{"Payload Too Large", "Request Entity Too Large"}},
	414: {"URI Too Long", "RFC 9110, Section 15.5.15", "The request target (URL) is longer than the server is willing to interpret.", nil},
	415: {"Unsupported Media Type", "RFC 9110, Section 15.5.16", "The server does not support the request body's Content-Type or Content-Encoding.", nil},
	416: {"Range Not Satisfiable", "RFC 9110, Section 15.5.17", "None of the byte ranges in the Range header overlap the resource.", nil},
	417: {"Expectation Failed", "RFC 9110, Section 15.5.18", "The server cannot meet the request's Expect header.", nil},
	418: {"I'm a teapot", "RFC 2324, Section 2.3.2; reserved by RFC 9110, Section 15.5.19", "An April Fools' joke (Hyper Text Coffee Pot Control Protocol): the server is a teapot and refuses to brew coffee; reserved and unused in HTTP.", []string{"(Unused)"}},
	421: {"Misdirected Request", "RFC 9110, Section 15.5.20", "The request reached a server that cannot answer for this scheme and authority, as with a reused HTTP/2 connection.", nil},
	422: {"Unprocessable Content", "RFC 9110, Section 15.5.21", "The request is well-formed but semantically invalid, such as failing validation of its fields.", []string{"Unprocessable Entity"}},
	423: {"Locked", "RFC 4918, Section 11.3", "WebDAV: the resource is locked.", nil},
	424: {"Failed Dependency", "RFC 4918, Section 11.4", "WebDAV: the request failed because a request it depended on failed.", nil},
	425: {"Too Early", "RFC 8470, Section 5.2", "The server will not process a request sent in TLS early data (0-RTT) because it might be replayed; retry after the handshake.", nil},
	426: {"Upgrade Required", "RFC 9110, Section 15.5.22", "The server refuses the request over the current protocol; the Upgrade header names one to switch to.", nil},
	428: {"Precondition Required", "RFC 6585, Section 3", "The server requires the request to be conditional (If-Match) to prevent lost updates.", nil},
	429: {"Too Many Requests", "RFC 6585, Section 4", "The client is rate limited; wait (see Retry-After) before retrying.", nil},
	431: {"Request Header Fields Too Large", "RFC 6585, Section 5", "One header, or all headers together, are too large; shrink them (often cookies) and retry.", nil},
	451: {"Unavailable For Legal Reasons", "RFC 7725, Section 3", "The resource is withheld for legal reasons, such as a court order or government censorship.", nil},

	500: {"Internal Server Error", "RFC 9110, Section 15.6.1", "The server hit an unexpected condition (often an unhandled exception) and could not fulfil the request.", nil},
	501: {"Not Implemented", "RFC 9110, Section 15.6.2", "The server does not support the functionality needed, such as an unknown method.", nil},
	502: {"Bad Gateway", "RFC 9110, Section 15.6.3", "A gateway or proxy got an invalid response from the upstream server.", nil},
	503: {"Service Unavailable", "RFC 9110, Section 15.6.4", "The server is temporarily overloaded or down for maintenance; Retry-After may say when to retry.", nil},
	504: {"Gateway Timeout", "RFC 9110, Section 15.6.5", "A gateway or proxy did not get a timely response from the upstream server.", nil},
	505: {"HTTP Version Not Supported", "RFC 9110, Section 15.6.6", "The server does not support the HTTP version of the request.", nil},
	506: {"Variant Also Negotiates", "RFC 2295, Section 8.1", "Transparent content negotiation is misconfigured: the chosen variant is itself negotiable, a loop.", nil},
	507: {"Insufficient Storage", "RFC 4918, Section 11.5", "WebDAV: the server cannot store what is needed to complete the request.", nil},
	508: {"Loop Detected", "RFC 5842, Section 7.2", "WebDAV: the server found an infinite loop while processing a request with Depth: infinity.", nil},
	510: {"Not Extended", "RFC 2774, Section 7 (historic)", "Obsolete: the request did not use an extension policy the server requires.", nil},
	511: {"Network Authentication Required", "RFC 6585, Section 6", "A captive portal (hotel or airport Wi-Fi) requires the client to log in before accessing the network.", nil},
}

// retryable are the codes a client may retry as is, after a delay.
var retryable = map[int]bool{408: true, 425: true, 429: true, 500: true, 502: true, 503: true, 504: true}

type statusCategory struct{ name, description string }

var categories = map[int]statusCategory{
	1: {"informational", "An interim response: the request was received and processing continues."},
	2: {"success", "The request was received, understood and accepted."},
	3: {"redirection", "The client must take further action, usually following the Location header."},
	4: {"clientError", "The request is at fault: bad syntax, missing authentication, or it cannot be fulfilled as sent."},
	5: {"serverError", "The server failed to fulfil an apparently valid request."},
}

type statusReport struct {
	Code        int      `json:"code"`
	Name        string   `json:"name"`
	AlsoKnownAs []string `json:"alsoKnownAs,omitempty"`
	Category    string   `json:"category"`
	Description string   `json:"description"`
	Retryable   bool     `json:"retryable"`
	Registered  bool     `json:"registered"`
	RFC         string   `json:"rfc"`
}

func httpStatusInfo() tool.Tool {
	type args struct {
		Code float64 `json:"code"` // float64 so that 404.0 binds as well as 404
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "http_status_info",
			Description: "Explain an HTTP status code. Returns {code, name, alsoKnownAs, category, description, retryable, " +
				"registered (IANA), rfc}; an unregistered code gets name \"Unknown\".",
			Phrases:  []string{"what does 429 mean", "status code meaning", "explain 404", "is 503 retryable", "http error code", "rfc for status code"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Integer("code", "Status code").Min(100).Max(599).Required(),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if in.Code < 100 || in.Code > 599 || in.Code != math.Trunc(in.Code) {
				return nil, invalid("code", "expected an HTTP status code from 100 to 599, got %v", in.Code)
			}
			code := int(in.Code)
			cat := categories[code/100]
			r := statusReport{Code: code, Category: cat.name, Retryable: retryable[code]}
			if s, ok := statuses[code]; ok {
				r.Name, r.Description, r.RFC, r.AlsoKnownAs, r.Registered = s.name, s.description, s.rfc, s.alsoKnownAs, true
			} else {
				r.Name, r.Description = "Unknown", "Not a registered status code. "+cat.description
			}
			return r, nil
		}),
	}
}
