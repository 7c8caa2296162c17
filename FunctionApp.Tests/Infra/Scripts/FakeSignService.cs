using System.Net;
using System.Security.Cryptography;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Infra.Scripts;

/// <summary>
/// A loopback stand-in for the deployed /api/sign and /api/verify, for the smoke script's own tests: sign answers the
/// one-widget vector with its canonical bytes signed by <see cref="Key"/>, anything else with a 400 problem; verify
/// checks X-Signature against the same key (over the vector's canonical bytes for the vector, over the raw body for
/// anything else, so a tampered envelope does not verify) unless <see cref="VerifierAcceptsAnything"/>; a call
/// without the function key is a 401 (the platform's), and one with the key but without <see cref="AccessToken"/> as
/// its bearer token is a 401 with <c>WWW-Authenticate: Bearer</c> (the app's) unless <see cref="ChecksCallers"/> is
/// false. Loopback only (127.0.0.1).
/// </summary>
public sealed class FakeSignService : IDisposable
{
    public const string FunctionKey = "fk-test";

    /// <summary>The access token the fake az issues and the fake app accepts (JWT-shaped).</summary>
    public const string AccessToken = "eyJ0eXAiOiJKV1QifQ.eyJzbW9rZSI6InRlc3QifQ.c2lnbmF0dXJl";

    private readonly HttpListener _listener = new();
    private readonly Task _loop;

    public FakeSignService(byte[] key, string keyId, int status = 200, bool verifierAcceptsAnything = false, bool checksCallers = true)
    {
        ChecksCallers = checksCallers;
        Key = key;
        KeyId = keyId;
        Status = status;
        VerifierAcceptsAnything = verifierAcceptsAnything;
        var port = Loopback.FreePort();
        BaseUrl = $"http://127.0.0.1:{port}";
        _listener.Prefixes.Add($"{BaseUrl}/");
        _listener.Start();
        _loop = Task.Run(ServeAsync);
    }

    public byte[] Key { get; }

    public string KeyId { get; }

    public int Status { get; }

    /// <summary>A broken verifier that answers valid for anything: the smoke test must catch it.</summary>
    public bool VerifierAcceptsAnything { get; }

    /// <summary>False: an app that signs for any caller with the function key, which the smoke test must catch.</summary>
    public bool ChecksCallers { get; }

    public string BaseUrl { get; }

    /// <summary>Requests with the function key, and how many of them carried the bearer token.</summary>
    public int KeyedRequests { get; private set; }

    public int KeyedRequestsWithToken { get; private set; }

    public int Requests { get; private set; }

    public void Dispose()
    {
        _listener.Close();
        try
        {
            _loop.Wait(TimeSpan.FromSeconds(5));
        }
        catch (AggregateException)
        {
            // The listener was closed under a pending GetContextAsync; nothing is left to serve.
        }
    }

    private async Task ServeAsync()
    {
        var vector = Vector.Load("one-widget");
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync();
            }
            catch (Exception ex) when (ex is HttpListenerException or ObjectDisposedException or InvalidOperationException)
            {
                return;
            }

            Requests++;
            using var response = context.Response;
            using var body = new MemoryStream();
            await context.Request.InputStream.CopyToAsync(body);
            var keyed = context.Request.Headers["x-functions-key"] == FunctionKey;
            var withToken = context.Request.Headers["Authorization"] == $"Bearer {AccessToken}";
            KeyedRequests += keyed ? 1 : 0;
            KeyedRequestsWithToken += keyed && withToken ? 1 : 0;
            if (!keyed)
            {
                response.StatusCode = 401;
            }
            else if (ChecksCallers && !withToken)
            {
                response.StatusCode = 401;
                response.Headers["WWW-Authenticate"] = "Bearer error=\"invalid_token\"";
            }
            else if (Status != 200)
            {
                response.StatusCode = Status;
            }
            else if (context.Request.Url!.AbsolutePath == "/api/verify")
            {
                var signed = body.ToArray().AsSpan().SequenceEqual(vector.Input) ? vector.Canonical : body.ToArray();
                var expected = Convert.ToHexString(HMACSHA256.HashData(Key, signed)).ToLowerInvariant();
                var valid = VerifierAcceptsAnything || context.Request.Headers["X-Signature"] == expected;
                response.StatusCode = 200;
                response.ContentType = "application/json; charset=utf-8";
                await response.OutputStream.WriteAsync(System.Text.Encoding.UTF8.GetBytes(valid ? "{\"valid\":true}" : "{\"valid\":false,\"reason\":\"signature-mismatch\"}"));
            }
            else if (body.ToArray().AsSpan().SequenceEqual(vector.Input))
            {
                response.StatusCode = 200;
                response.ContentType = "application/json; charset=utf-8";
                response.Headers["X-Signature"] = Convert.ToHexString(HMACSHA256.HashData(Key, vector.Canonical)).ToLowerInvariant();
                response.Headers["X-Signature-Algorithm"] = "HMACSHA256";
                response.Headers["X-Signature-Key-Id"] = KeyId;
                await response.OutputStream.WriteAsync(vector.Canonical);
            }
            else
            {
                response.StatusCode = 400;
                response.ContentType = "application/problem+json; charset=utf-8";
                await response.OutputStream.WriteAsync("{\"status\":400}"u8.ToArray());
            }
        }
    }
}
