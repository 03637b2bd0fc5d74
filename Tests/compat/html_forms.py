"""Purse's HTML pages as the customer's browser reads them and posts their forms, for the compat
tests that play that browser (the 3-D Secure page, the test bank): one parser and one way to fill
a form, so that every test sends what a browser sends. `BankPage` is that browser on the test
bank's page for both SDKs' replays, each naming its own (`Browser`: stripe_ios.SAFARI,
stripe_android.CUSTOM_TAB)."""
import html.parser
import urllib.parse
from dataclasses import dataclass

import requests

from conftest import SECRETS_SEEN, SENT_CARD_DATA


class _PageParser(html.parser.HTMLParser):
    """A page's forms (method, action and their controls in document order: inputs, selects with
    their options, buttons), its links (`<a href>`: id, href with its character references decoded,
    as a browser reads the attribute, and text), its element ids and its text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self.links = []
        self.ids = set()
        self._text = []
        self._form = None
        self._select = None
        self._option = None
        self._link = None

    @property
    def text(self):
        """The page's text, its runs of whitespace made one space."""
        return " ".join(" ".join(self._text).split())

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href") is not None:
            self._link = {"id": attrs.get("id"), "href": attrs["href"], "text": ""}
            self.links.append(self._link)
        elif tag == "form":
            self._form = {"method": (attrs.get("method") or "get").lower(), "action": attrs.get("action"),
                          "controls": []}
            self.forms.append(self._form)
        elif self._form is not None:  # a control outside any form is not sent
            self._control(tag, attrs)

    def _control(self, tag, attrs):
        controls = self._form["controls"]
        if tag == "input":
            controls.append({"tag": "input", "type": (attrs.get("type") or "text").lower(), "name": attrs.get("name"),
                             "value": attrs.get("value"), "checked": "checked" in attrs,
                             "disabled": "disabled" in attrs})
        elif tag == "button":
            controls.append({"tag": "button", "type": (attrs.get("type") or "submit").lower(),
                             "name": attrs.get("name"), "value": attrs.get("value") or "",
                             "disabled": "disabled" in attrs})
        elif tag == "select":
            self._select = {"tag": "select", "name": attrs.get("name"), "options": [], "disabled": "disabled" in attrs}
            controls.append(self._select)
        elif tag == "option" and self._select is not None:
            self._option = {"value": attrs.get("value"), "selected": "selected" in attrs, "text": ""}
            self._select["options"].append(self._option)

    def handle_endtag(self, tag):
        if tag in ("option", "select") and self._option is not None:
            if self._option["value"] is None:  # an option without a value sends its text
                self._option["value"] = self._option["text"].strip()
            self._option = None
        if tag == "select":
            self._select = None
        elif tag == "form":
            self._form = None
        elif tag == "a":
            self._link = None

    def handle_data(self, data):
        if self._option is not None:
            self._option["text"] += data
        if self._link is not None:
            self._link["text"] += data
        self._text.append(data)


def parse(text):
    """The page `text` as a browser reads it: `.forms`, `.links`, `.ids`, `.text`."""
    parser = _PageParser()
    parser.feed(text)
    parser.close()
    return parser


def form_fields(form, values=None, pressed=None):
    """The (name, value) pairs a browser posts for `form`: its named, enabled controls in document
    order. A text or hidden input sends `values[name]` (what the customer typed) or its value; a
    radio or checkbox is sent when checked, or, for a name in `values`, when its value is that one
    (the customer's click); a select sends `values[name]` or its selected (else first) option; a
    submit button only when it is the one `pressed`, a (name, value) pair."""
    values = values or {}
    fields = []
    for control in form["controls"]:
        name = control["name"]
        if not name or control["disabled"]:
            continue
        if control["tag"] == "select":
            options = control["options"]
            value = values.get(name, next((option["value"] for option in options if option["selected"]),
                                          options[0]["value"] if options else None))
            if value is not None:
                fields.append((name, value))
        elif control["tag"] == "button":
            if control["type"] == "submit" and (name, control["value"]) == pressed:
                fields.append((name, control["value"]))
        elif control["type"] in ("radio", "checkbox"):
            if (control["value"] == values[name]) if name in values else control["checked"]:
                fields.append((name, control["value"] if control["value"] is not None else "on"))
        elif control["type"] not in ("submit", "button", "image", "reset", "file"):
            fields.append((name, values.get(name, control["value"] or "")))
    return fields


@dataclass(frozen=True)
class Browser:
    """The browser an SDK opens on the test bank's page, as the page sees it: the headers of its
    every request (no `Referer`: Purse's pages ask for none with `Referrer-Policy: no-referrer`)."""

    headers: dict


class BankPage:
    """Purse's test-bank page as the browser got it: its status, Content-Type, Location, text,
    forms, links and element ids. `open` loads the URL HostedAuthUrlBuilder made; `submit` presses
    a button of its form as a browser does (`form_fields`, form-encoded, POSTed to the form's
    action resolved against the page's URL) and returns the answer as the page the browser then
    shows. A redirect is not followed: the page must end on a link (a Custom Tab opens an app's
    scheme only from a gesture), which `tap_return` taps. Every request and answer is recorded in
    conftest's SENT_CARD_DATA and SECRETS_SEEN, as the SDK replays record theirs."""

    def __init__(self, url, response, browser=None, session=None):
        self.url = url
        self.response = response
        self.browser = browser
        self.session = session  # the browser's cookies, kept from page to page
        page = parse(response.text)
        self.forms = page.forms
        self.links = page.links
        self.ids = page.ids
        self.text = page.text

    @classmethod
    def open(cls, url, browser):
        """The browser loads `url`: the bytes HostedAuthUrlBuilder made, not requests' re-quoting."""
        session = requests.Session()
        session.headers.update(browser.headers)
        return cls._load(requests.Request("GET", url.split("?")[0]), url, None, browser, session)

    @classmethod
    def _load(cls, request, url, body, browser, session):
        """Sends `request` to `url` as it is, recorded; the answer is the page the browser shows."""
        SENT_CARD_DATA.record(url, body)
        prepared = session.prepare_request(request)
        prepared.url = url
        response = session.send(prepared, allow_redirects=False, timeout=30)
        SECRETS_SEEN.record(response.text)
        return cls(url, response, browser, session)

    @property
    def status(self):
        return self.response.status_code

    @property
    def content_type(self):
        return self.response.headers.get("Content-Type", "")

    @property
    def location(self):
        return self.response.headers.get("Location")

    @property
    def return_link(self):
        """The href of the page's link back to the app (`<a id="return">`), or None."""
        return next((link["href"] for link in self.links if link["id"] == "return"), None)

    def tap_return(self):
        """The customer taps the link back to the app: the browser starts a navigation to its href,
        resolved against the page's URL (an absolute `stripe-auth://...` stays as it is), which the
        SDK checks. None when the page has no such link: the customer is left on the page."""
        href = self.return_link
        return None if href is None else urllib.parse.urljoin(self.url, href)

    def radio_values(self, name="account"):
        return [control["value"] for form in self.forms for control in form["controls"]
                if control["tag"] == "input" and control["type"] == "radio" and control["name"] == name]

    def select_values(self, name):
        return [option["value"] for form in self.forms for control in form["controls"]
                if control["tag"] == "select" and control["name"] == name for option in control["options"]]

    def buttons(self, name="action"):
        return [control["value"] for form in self.forms for control in form["controls"]
                if control["tag"] == "button" and control["name"] == name]

    def form_with_button(self, action):
        return next((form for form in self.forms
                     if any(control["tag"] == "button" and control["type"] == "submit"
                            and (control["name"], control["value"]) == ("action", action)
                            for control in form["controls"])), None)

    def submit(self, account="checking", action="link", **values):
        """The customer picks `account` (checking, savings, closed, no_account, or manual with
        routing_number=, account_number=, account_type=; None keeps the page's choice) and presses
        the button `action`. The answer keeps the fields sent (`submitted`)."""
        form = self.form_with_button(action)
        assert form is not None, f"no form with a submit button action={action!r} on {self.url}: {self.text[:300]}"
        assert form["method"] == "post", f"the page's form is {form['method'].upper()}, not POST"
        if account is not None:
            assert account in self.radio_values(), f"no account radio {account!r} (has {self.radio_values()})"
            values["account"] = account
        fields = form_fields(form, values, ("action", action))
        target = urllib.parse.urljoin(self.url, form["action"] or "")
        headers = {"Content-Type": "application/x-www-form-urlencoded",
                   "Origin": "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(self.url))}
        if values.get("account_number"):
            SENT_CARD_DATA.account_numbers.add(values["account_number"])  # not under the API's field name
        body = urllib.parse.urlencode(fields)
        answer = self._load(requests.Request("POST", target, data=body.encode(), headers=headers), target, body,
                            self.browser, self.session)
        answer.submitted = fields
        return answer
