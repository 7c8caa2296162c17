using System.Net.Http.Headers;
using System.Text;
using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// Slow uploads against the published isolated app in tools/WorkerHost, which runs an HTTP invocation as the Functions
/// host does: the host's slot, if host.json set one, is held until the forward ends, which over HTTP/1.1 is when the
/// client's body ends (docs/security.md). More trickling connections than the old throttle's 8 slots must not delay
/// anyone else.
/// </summary>
public sealed class SlowUploadAttackTests(IsolatedAttackHostFixture fixture, ITestOutputHelper output) : IClassFixture<IsolatedAttackHostFixture>
{
    private const int SlowClients = 12;
    private const int NormalRequests = 10;
    private const int DeclaredLength = 1_167_610;

    [Fact]
    public async Task Sign_SlowUploadsAttack_NormalRequestsAnsweredWhileEveryUploadStillTrickles()
    {
        // Arrange: 12 connections each declaring ~1.1 MB and sending 500 B/s (50 bytes every 100 ms); each has sent a
        // first piece, so each is in the host and forwarded to the worker.
        var body = new byte[DeclaredLength];
        body.AsSpan().Fill((byte)' ');
        var slow = new List<(RawHttpClient Client, Task<RawHttpOutcome> Answer, Task<int> Sent)>();
        var vector = Vector.Load("one-widget").Input;
        try
        {
            for (var i = 0; i < SlowClients; i++)
            {
                var client = await RawHttpClient.ConnectAsync(fixture.Host.BaseAddress);
                await client.SendAsync(Encoding.ASCII.GetBytes(
                    $"POST /api/sign HTTP/1.1\r\nHost: {fixture.Host.BaseAddress.Authority}\r\nContent-Type: application/json\r\nContent-Length: {DeclaredLength}\r\n\r\n"));
                var answer = client.ReadResponseAsync(TimeSpan.FromSeconds(120));
                slow.Add((client, answer, client.TrickleAsync(body, 50, TimeSpan.FromMilliseconds(100), answer)));
            }

            await Task.Delay(500);

            // Act: normal requests, one after another.
            var statuses = new List<int>();
            var unansweredAtEach = new List<int>();
            for (var i = 0; i < NormalRequests; i++)
            {
                using var content = new ByteArrayContent(vector);
                content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
                using var response = await fixture.Client.PostAsync(new Uri("/api/sign", UriKind.Relative), content);
                statuses.Add((int)response.StatusCode);
                unansweredAtEach.Add(slow.Count(s => !s.Answer.IsCompleted));
            }

            output.WriteLine($"normal: {string.Join(",", statuses)}; slow uploads still unanswered after each: {string.Join(",", unansweredAtEach)}");

            // Assert: every normal request was signed while all the slow uploads were still in flight: none of them held a
            // slot the normal requests needed.
            Assert.All(statuses, s => Assert.Equal(200, s));
            Assert.All(unansweredAtEach, n => Assert.Equal(SlowClients, n));
        }
        finally
        {
            foreach (var (client, _, _) in slow)
            {
                client.Dispose();
            }
        }
    }
}
