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


PASS_ONE = ("In pass %(k)s of this run, the one shown below, the draft guessed "
            "“%(guesses)s”, and the target checked its %(num)s guess in that one pass.")
PASS_MANY = ("In pass %(k)s of this run, the one shown below, the draft guessed "
             "“%(guesses)s”, and the target checked all %(num)s together.")


def test_variables_and_plurals_are_filled_in(app):
    with app.test_request_context("/en/specdec/"):
        assert gettext("an integer from %(lo)s to %(hi)s", lo=1, hi=8) == "an integer from 1 to 8"
        assert ngettext(PASS_ONE, PASS_MANY, 1, k=2, guesses="a").endswith("its 1 guess in that one pass.")
        assert ngettext(PASS_ONE, PASS_MANY, 3, k=2, guesses="a b c").endswith("checked all 3 together.")
    with app.test_request_context("/zh/specdec/"):
        assert gettext("an integer from %(lo)s to %(hi)s", lo=1, hi=8) == "介于 1 和 8 之间的整数"
        assert ngettext(PASS_ONE, PASS_MANY, 3, k=2, guesses="甲").startswith("在这次运行的第 2 次前向")


def test_outside_a_request_the_string_is_its_own_translation():
    assert gettext("Speculative decoding") == "Speculative decoding"
