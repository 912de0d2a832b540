"""TimesLogged: the messages a claim may name (those the snippet kept of torch's log, ``results.json``'s
``logged``); on the block's compiled recording, Dynamo's word on the regions. Its known answers:
tests/site/measures/test_results.py."""

from profguide.site import claims
from profguide.site.catalogue import by_id
from profguide.site.data import RecordingData
from profguide.site.measures.results import TimesLogged
from tests.helpers import ROOT, Results

IGNORED = "Profiler record function <class 'torch.autograd.profiler.record_function'> will be ignored"


def test_a_message_must_be_one_the_run_logged():
    logged = Results(found={"logged": [IGNORED]})
    assert claims.allowed("log message", TimesLogged(IGNORED), logged) == {IGNORED}
    assert claims.allowed("log message", TimesLogged(IGNORED), Results(found=None)) == set()


def test_the_compiled_block_logged_that_dynamo_ignores_record_function_once():
    compiled = RecordingData(by_id("model-block-compiled"), ROOT / "docs" / "generated" / "model-block-compiled")
    assert claims.measured(TimesLogged(IGNORED), compiled) == 1
