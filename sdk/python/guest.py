"""componentize-py looks up the implementation of the exported `decoder` resource in a top-level
module named after its interface (`guest`); the SDK's delegating class lives here."""

from tack_plugin import Decoder

__all__ = ["Decoder"]
