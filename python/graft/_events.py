"""Reading back the events a grafter wrote as JSON lines."""

import json
import os


def read_events(path, as_dataframe=None):
    """The events in a JSON-lines file, oldest first.

    as_dataframe: None gives a pandas DataFrame when pandas is installed and a
    list of dicts otherwise; True always a DataFrame (ImportError without
    pandas); False always a list of dicts.
    """
    events = []
    with open(os.fspath(path), encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{os.fspath(path)}:{number}: not a JSON event line ({e.msg}); "
                                 f"graft writes one JSON object per line") from None
    if as_dataframe is False:
        return events
    try:
        import pandas
    except ImportError:
        if as_dataframe:
            raise ImportError("read_events(as_dataframe=True) needs pandas: pip install pandas") from None
        return events
    return pandas.DataFrame(events)
