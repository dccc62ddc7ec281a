"""Phone numbers as people write them, the text around them, and numbers that are not
phones: shared by the Python and the Mastra export tests of redaction."""

from __future__ import annotations

PHONES = [
    # International with +
    "+49 30 1234567",
    "+49 (0)30 1234567",
    "+44 20 7946 0958",
    "+44 (0) 20 7946 0958",
    "+44(0)2079460958",
    "+1 415 555 2671",
    "+1 (415) 555-2671",
    "+1-415-555-2671",
    "+1.415.555.2671",
    "+33 1 23 45 67 89",
    "+33 1.42.68.53.00",
    "+33-1-42-68-53-00",
    "+4915112345678",
    "+81 3-1234-5678",
    "+61 (2) 9876 5432",
    "+39 06 1234 5678",
    # International with 00
    "0049 30 1234567",
    "0049.30.1234567",
    "0049-30-1234567",
    "0044 20 7946 0958",
    "0044-20-7946-0958",
    "00 33 1 42 68 53 00",
    "0033 (0)1 42 68 53 00",
    "0031 20 123 4567",
    "0081 3 1234 5678",
    # North American
    "(555) 123-4567",
    "(415)555-2671",
    "415-555-2671",
    "415.555.2671",
    "415 555 2671",
    "1-415-555-2671",
    "1 (415) 555-2671",
    # National, with a trunk 0
    "030 1234567",
    "030-1234567",
    "030 12345",
    "030.1234567",
    "030/1234567",
    "(030) 1234567",
    "(030) 123 45 67",
    "(0)30 1234567",
    "020 7946 0958",
    "020-7946-0958",
    "0171.2345678",
    "01 42 68 53 00",
    "06.12.34.56.78",
    "06-12-34-56-78",
]

AROUND = [
    ("Call {} now.", "Call [REDACTED:phone] now."),
    ("({})", "([REDACTED:phone])"),
    ("[{}]", "[[REDACTED:phone]]"),
    ("tel:{};", "tel:[REDACTED:phone];"),
    ('"{}"', '"[REDACTED:phone]"'),
    ("{}, or {}.", "[REDACTED:phone], or [REDACTED:phone]."),
    ("Number\n{}\nthanks", "Number\n[REDACTED:phone]\nthanks"),
]

NOT_PHONES = [
    "Dates 01.02.2024, 05-01-2024, 2024.01.15 and 01/15/2024",
    "Order 0012345678 and invoice 00123456",
    "ISBN 978-3-16-148410-0",
    "Version 0.12.3, 1.2.3.4 on 192.168.1.10",
    "Times 00:30 to 01:45",
    "Amounts 0.5, 0.25 and 1,234.56",
    "Short numbers 030 123 and 112 and +49 30",
    "Extension ext. 555, room 0042",
    "Too long to be a phone: +49 30 1234567 8901 2345 6789",
    "ID 1234567890123456",
]
