"""The bus contract: typed models of every body memubot takes, sends and answers, and the
AsyncAPI document made from them (`memubot asyncapi`, docs/asyncapi.json).

fields.py holds the rules of single fields (with the words of their refusals), inbound.py the
`memubot.in.*` events that daemon/events.py validates through, outbound.py what memubot
publishes on `memubot.out.*`, requests.py the `memubot.rpc.<verb>` requests and replies, and
asyncapi.py the document. Only asyncapi.py imports FastStream; the memory core imports none of
these.
"""
