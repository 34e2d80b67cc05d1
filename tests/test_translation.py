"""views/translation.py: the catalog found once per request still follows the request's locale,
Flask-Babel's force_locale inside it, and the templates' gettext."""
from __future__ import annotations

from flask import render_template_string
from flask_babel import force_locale

from views.translation import gettext, lazy_gettext, ngettext


def test_gettext_follows_the_request_and_force_locale(app):
    with app.test_request_context("/zh/specdec/"):
        assert gettext("Speculative decoding") == "推测解码"
        with force_locale("en"):
            assert gettext("Speculative decoding") == "Speculative decoding"
        assert gettext("Speculative decoding") == "推测解码"    # the held catalog is Chinese again
    with app.test_request_context("/en/specdec/"):
        assert gettext("Speculative decoding") == "Speculative decoding"
        with force_locale("zh"):
            assert gettext("Speculative decoding") == "推测解码"


def test_the_templates_and_lazy_strings_read_the_same_catalog(app):
    lazy = lazy_gettext("Speculative decoding")
    for lang, want in (("zh", "推测解码"), ("en", "Speculative decoding")):
        with app.test_request_context(f"/{lang}/specdec/"):
            assert render_template_string("{{ _('Speculative decoding') }}") == want
            assert str(lazy) == want


def test_variables_and_plurals_are_filled_in(app):
    with app.test_request_context("/en/specdec/"):
        assert gettext("%(n)s of %(m)s", n=1, m=2) == "1 of 2"
        assert ngettext("%(num)s pass", "%(num)s passes", 1) == "1 pass"
        assert ngettext("%(num)s pass", "%(num)s passes", 3) == "3 passes"


def test_outside_a_request_the_string_is_its_own_translation():
    assert gettext("Speculative decoding") == "Speculative decoding"
