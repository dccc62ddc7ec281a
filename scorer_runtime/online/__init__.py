"""Live traffic: the OTLP/HTTP receiver that stores the traces an application exports
(``receiver``, bodies read by ``otlp_body``)."""
