using System.Diagnostics;
using System.Globalization;
using Microsoft.AspNetCore.Mvc;
using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>An RFC 9457 <c>application/problem+json</c> response; never carries a stack trace or a secret.</summary>
public sealed class ProblemResult : IActionResult
{
    private readonly string? _traceId;

    /// <summary>Creates the result.</summary>
    public ProblemResult(int status, string type, string title, string detail)
    {
        // The trace the problem happened in, as the audit record names it (AuditRecord.TraceId): taken now, inside the
        // handler's spans, since the result may be written after they end.
        _traceId = Activity.Current?.TraceId.ToHexString();
        Status = status;
        Type = type;
        Title = title;
        Detail = detail;
    }

    /// <summary>Creates the answer to <paramref name="problem"/>.</summary>
    internal ProblemResult(Problem problem)
        : this(problem.Status, problem.Type, problem.Title, problem.Detail)
    {
        JsonPath = problem.JsonPath;
        WwwAuthenticate = problem.WwwAuthenticate;
        RetryAfter = problem.RetryAfter;
    }

    /// <summary>The HTTP status code.</summary>
    public int Status { get; }

    /// <summary>The problem type URI (<see cref="ProblemTypes"/>).</summary>
    public string Type { get; }

    /// <summary>A short, fixed summary of the problem type.</summary>
    public string Title { get; }

    /// <summary>What exactly is wrong with this request.</summary>
    public string Detail { get; }

    /// <summary>The JSON path of the offending value, where there is one.</summary>
    public string? JsonPath { get; init; }

    /// <summary>Sent as <c>WWW-Authenticate</c> when set (401, and 403 for a missing role).</summary>
    public string? WwwAuthenticate { get; init; }

    /// <summary>Sent as <c>Retry-After</c> when set.</summary>
    public TimeSpan? RetryAfter { get; init; }

    /// <inheritdoc />
    public Task ExecuteResultAsync(ActionContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var response = context.HttpContext.Response;
        if (WwwAuthenticate is not null)
        {
            response.Headers.WWWAuthenticate = WwwAuthenticate;
        }

        if (RetryAfter is { } retryAfter)
        {
            response.Headers.RetryAfter = Math.Max(1, (int)Math.Ceiling(retryAfter.TotalSeconds)).ToString(CultureInfo.InvariantCulture);
        }

        return SmallJson.WriteAsync(response, Status, "application/problem+json; charset=utf-8", json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("type");
            json.WriteValue(Type);
            json.WritePropertyName("title");
            json.WriteValue(Title);
            json.WritePropertyName("status");
            json.WriteValue(Status);
            json.WritePropertyName("detail");
            json.WriteValue(Detail);
            if (JsonPath is not null)
            {
                json.WritePropertyName("jsonPath");
                json.WriteValue(JsonPath);
            }

            json.WritePropertyName("traceId");
            json.WriteValue(_traceId ?? context.HttpContext.TraceIdentifier);
            json.WriteEndObject();
        }, context.HttpContext.RequestAborted);
    }
}
