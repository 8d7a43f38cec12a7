package data

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// locale is the word lists and formats of one locale.
type locale struct {
	first, last, cities, streets, companySuffixes []string
	// country is the locale's own country, as written there.
	country string
	street  func(r *rand.Rand, name string) string
	zip     func(r *rand.Rand) string
	phone   func(r *rand.Rand) string
}

// defaultLocale is used when the caller names none.
const defaultLocale = "en_US"

var locales = map[string]*locale{
	"en_US": {
		first: []string{"James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth",
			"David", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen"},
		last: []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
			"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin"},
		cities: []string{"New York", "Los Angeles", "Chicago", "Houston", "Phoenix", "Philadelphia", "San Antonio", "San Diego",
			"Dallas", "Austin", "Seattle", "Denver", "Boston", "Portland", "Atlanta"},
		streets: []string{"Main Street", "Oak Avenue", "Maple Drive", "Cedar Lane", "Pine Street", "Elm Street",
			"Washington Avenue", "Lake Road", "Hill Street", "Park Avenue", "Sunset Boulevard", "River Road"},
		companySuffixes: []string{"Inc.", "LLC", "Corp.", "Group", "Holdings", "Labs", "Systems", "Partners"},
		country:         "United States",
		street:          func(r *rand.Rand, name string) string { return fmt.Sprintf("%d %s", between(r, 1, 9999), name) },
		zip:             func(r *rand.Rand) string { return fmt.Sprintf("%05d", between(r, 1001, 99950)) },
		// 555-0100 to 555-0199 are reserved for fiction in every area code.
		phone: func(r *rand.Rand) string {
			return fmt.Sprintf("+1 (%d) 555-01%02d", between(r, 201, 989), r.IntN(100))
		},
	},
	"en_GB": {
		first: []string{"Oliver", "Amelia", "George", "Isla", "Harry", "Ava", "Jack", "Mia", "Charlie", "Emily",
			"Thomas", "Sophie", "Oscar", "Grace", "William", "Lily", "James", "Freya", "Henry", "Evie"},
		last: []string{"Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies", "Robinson", "Wright",
			"Thompson", "Evans", "Walker", "White", "Roberts", "Green", "Hall", "Wood", "Jackson", "Clarke"},
		cities: []string{"London", "Manchester", "Birmingham", "Leeds", "Glasgow", "Liverpool", "Bristol", "Sheffield",
			"Edinburgh", "Cardiff", "Leicester", "Nottingham", "Newcastle upon Tyne", "Brighton", "Oxford"},
		streets: []string{"High Street", "Station Road", "Church Lane", "Victoria Road", "Green Lane", "Manor Road",
			"Park Road", "Queens Road", "Kings Road", "The Crescent", "Mill Lane", "London Road"},
		companySuffixes: []string{"Ltd", "PLC", "Group", "& Co.", "Holdings", "Partners"},
		country:         "United Kingdom",
		street:          func(r *rand.Rand, name string) string { return fmt.Sprintf("%d %s", between(r, 1, 250), name) },
		zip: func(r *rand.Rand) string {
			const inward = "ABDEFGHJLNPQRSTUWXYZ"
			area := pick(r, []string{"SW", "EC", "N", "M", "B", "LS", "G", "L", "BS", "S", "EH", "CF", "LE", "NG", "NE", "BN", "OX"})
			return fmt.Sprintf("%s%d %d%c%c", area, between(r, 1, 20), r.IntN(10), inward[r.IntN(len(inward))], inward[r.IntN(len(inward))])
		},
		// Ofcom reserves 07700 900000 to 900999 for drama.
		phone: func(r *rand.Rand) string { return fmt.Sprintf("+44 7700 900%03d", r.IntN(1000)) },
	},
	"de_DE": {
		first: []string{"Lukas", "Anna", "Leon", "Lea", "Finn", "Hannah", "Jonas", "Emma", "Paul", "Mia",
			"Felix", "Lena", "Maximilian", "Sophie", "Elias", "Marie", "Jürgen", "Sören", "Käthe", "Jörg"},
		last: []string{"Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann",
			"Schäfer", "Koch", "Bauer", "Richter", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann"},
		cities: []string{"Berlin", "Hamburg", "München", "Köln", "Frankfurt am Main", "Stuttgart", "Düsseldorf", "Leipzig",
			"Dortmund", "Essen", "Bremen", "Dresden", "Hannover", "Nürnberg"},
		streets: []string{"Hauptstraße", "Schulstraße", "Gartenstraße", "Bahnhofstraße", "Dorfstraße", "Bergstraße",
			"Birkenweg", "Lindenstraße", "Kirchstraße", "Waldstraße", "Ringstraße", "Goethestraße"},
		companySuffixes: []string{"GmbH", "AG", "KG", "GmbH & Co. KG", "Gruppe"},
		country:         "Deutschland",
		street:          func(r *rand.Rand, name string) string { return fmt.Sprintf("%s %d", name, between(r, 1, 200)) },
		zip:             func(r *rand.Rand) string { return fmt.Sprintf("%05d", between(r, 1067, 99998)) },
		// 030 23125 000 to 999 is a block set aside for film and television.
		phone: func(r *rand.Rand) string { return fmt.Sprintf("+49 30 23125 %03d", r.IntN(1000)) },
	},
	"fr_FR": {
		first: []string{"Gabriel", "Louise", "Léo", "Jade", "Raphaël", "Ambre", "Arthur", "Alice", "Louis", "Emma",
			"Jules", "Chloé", "Adam", "Lina", "Hugo", "Léa", "Maël", "Inès", "Noé", "Zoé"},
		last: []string{"Martin", "Bernard", "Thomas", "Petit", "Robert", "Richard", "Durand", "Dubois", "Moreau", "Laurent",
			"Simon", "Michel", "Lefèvre", "Leroy", "Roux", "David", "Bertrand", "Morel", "Fournier", "Girard"},
		cities: []string{"Paris", "Marseille", "Lyon", "Toulouse", "Nice", "Nantes", "Strasbourg", "Montpellier",
			"Bordeaux", "Lille", "Rennes", "Reims", "Le Havre", "Saint-Étienne", "Toulon"},
		streets: []string{"rue de la Paix", "rue Victor Hugo", "rue de la République", "boulevard Saint-Michel",
			"rue Pasteur", "rue Jean Jaurès", "place de la Mairie", "rue du Moulin", "chemin des Vignes",
			"allée des Tilleuls", "rue de l'Église", "avenue de la Gare"},
		companySuffixes: []string{"SA", "SARL", "SAS", "et Fils", "Groupe"},
		country:         "France",
		street:          func(r *rand.Rand, name string) string { return fmt.Sprintf("%d %s", between(r, 1, 150), name) },
		zip:             func(r *rand.Rand) string { return fmt.Sprintf("%05d", between(r, 1000, 95999)) },
		// ARCEP reserves 01 99 00 xx xx for fiction.
		phone: func(r *rand.Rand) string { return fmt.Sprintf("+33 1 99 00 %02d %02d", r.IntN(100), r.IntN(100)) },
	},
}

// localeNames lists the supported locales in a stable order.
var localeNames = []string{"en_US", "en_GB", "de_DE", "fr_FR"}

var countries = []string{"United States", "United Kingdom", "Germany", "France", "Canada", "Australia", "Japan",
	"Brazil", "India", "Mexico", "Spain", "Italy", "Netherlands", "Sweden", "Norway", "Ireland", "New Zealand",
	"South Africa", "Argentina", "Singapore", "South Korea", "Switzerland", "Poland", "Portugal", "Kenya", "Egypt"}

// lorem is the vocabulary of sentences and paragraphs.
var lorem = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor
incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris
nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat
nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim
id est laborum`)

// emailDomains and urlDomains are reserved for documentation (RFC 2606).
var (
	emailDomains = []string{"example.com", "example.org"}
	urlDomains   = []string{"example.com", "example.org", "example.net"}
)

// testCard is a published payment-gateway test card number.
type testCard struct{ brand, number string }

// testCards are the well-known test numbers that gateways (Stripe, Adyen,
// Braintree, PayPal) accept in test mode; all pass the Luhn check and none is
// a real account.
var testCards = []testCard{
	{"visa", "4242424242424242"},
	{"visa", "4111111111111111"},
	{"visa", "4012888888881881"},
	{"visa", "4000056655665556"},
	{"mastercard", "5555555555554444"},
	{"mastercard", "5105105105105100"},
	{"mastercard", "2223003122003222"},
	{"amex", "378282246310005"},
	{"amex", "371449635398431"},
	{"discover", "6011111111111117"},
	{"discover", "6011000990139424"},
	{"diners", "30569309025904"},
	{"jcb", "3530111333300000"},
}

// ascii folds the accented letters of the word lists to ASCII, for e-mail
// addresses and user names.
var ascii = strings.NewReplacer(
	"ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss", "Ä", "Ae", "Ö", "Oe", "Ü", "Ue",
	"é", "e", "è", "e", "ê", "e", "ë", "e", "É", "E", "à", "a", "â", "a", "ç", "c",
	"î", "i", "ï", "i", "ô", "o", "ù", "u", "û", "u",
)

// slug returns s folded to lower-case ASCII letters and digits.
func slug(s string) string {
	s = strings.ToLower(ascii.Replace(s))
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
