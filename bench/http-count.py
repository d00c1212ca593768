#!/usr/bin/env python3
"""A fixed number of launch queries to deliveryd's `POST /rpc`, for counters that are read per request (bench/profile.sh).

Sends COUNT queries over CONNECTIONS keep-alive HTTP/1.1 connections, one request in flight on each, the next sent
when the last is answered; the queries are zmq_load's (../shared/bench/zmq-limit's common.h: app shop, iOS 5.2.0,
cn-east, zh-CN), device ids d-0 ... d-9999 in turn, so that a second run of 10,000 or more finds every device known.
Prints one line: completed, errors (an answer without "result" or a status other than 200) and seconds.

    bench/http-count.py HOST:PORT COUNT [CONNECTIONS]      (default 1 connection)
"""
import asyncio
import sys
import time

QUERY = ('{"jsonrpc":"2.0","id":%d,"method":"launch.query","params":{"app":"shop","platform":"ios","appVersion":"5.2.0",'
         '"region":"cn-east","locale":"zh-CN","deviceId":"d-%d","screen":{"width":1179,"height":2556}}}')
DEVICES = 10_000


async def connection(host, port, ids, tally):
    reader, writer = await asyncio.open_connection(host, port)
    for request_id in ids:
        body = (QUERY % (request_id, request_id % DEVICES)).encode()
        writer.write(b"POST /rpc HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (host.encode(), len(body), body))
        status = await reader.readline()
        length = 0
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        answer = await reader.readexactly(length)
        ok = status.split(b" ")[1:2] == [b"200"] and b'"result"' in answer
        tally["completed" if ok else "errors"] += 1
    writer.close()


async def main():
    host, _, port = sys.argv[1].rpartition(":")
    count = int(sys.argv[2])
    connections = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    tally = {"completed": 0, "errors": 0}
    start = time.monotonic()
    # Request ids 1 ... COUNT dealt round the connections, as zmq_load numbers its own.
    await asyncio.gather(*(connection(host, int(port), range(1 + c, count + 1, connections), tally) for c in range(connections)))
    print(f"completed={tally['completed']} errors={tally['errors']} seconds={time.monotonic() - start:.3f}")


asyncio.run(main())
