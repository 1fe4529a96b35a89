import BGeoReader

/// The report's only stylesheet and script, inlined. The page's Content-Security-Policy allows
/// exactly these two blocks (by SHA-256 hash) and nothing else: no network, no other script.
enum ReportAssets {
    static let css = """
    :root{--fg:#1f2933;--muted:#5f6b7a;--line:#d9dee5;--bg:#ffffff;--panel:#f6f8fa;--accent:#1d4ed8;
    --err:#b91c1c;--warn:#b45309;--info:#1d4ed8;--ok:#15803d}
    *{box-sizing:border-box}
    body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
    main{max-width:1100px;margin:0 auto;padding:0 20px 40px}
    header.top{background:#0f172a;color:#e2e8f0;padding:18px 0 14px}
    header.top .inner{max-width:1100px;margin:0 auto;padding:0 20px}
    header.top h1{margin:0 0 4px;font-size:22px;font-weight:600;color:#fff}
    header.top .sub{color:#94a3b8;font-size:13px}
    nav.toc{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);margin:0 -20px 8px;padding:8px 20px}
    nav.toc a{color:var(--accent);text-decoration:none;margin-right:14px;font-size:13px}
    h2{font-size:18px;margin:26px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}
    h3{font-size:15px;margin:18px 0 6px}
    a{color:var(--accent)}
    code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
    pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:10px;overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-all}
    table.kv{border-collapse:collapse;margin:6px 0}
    table.kv th{text-align:left;font-weight:600;padding:3px 14px 3px 0;vertical-align:top;color:var(--muted);white-space:nowrap}
    table.kv td{padding:3px 0;vertical-align:top}
    .cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
    .card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:130px}
    .card b{display:block;font-size:20px}
    .card span{color:var(--muted);font-size:12px}
    ol.findings{list-style:none;padding:0;margin:0}
    ol.findings>li{border:1px solid var(--line);border-left:5px solid var(--info);border-radius:6px;padding:8px 12px;margin:8px 0;background:#fff}
    ol.findings>li.error{border-left-color:var(--err);background:#fef2f2}
    ol.findings>li.warning{border-left-color:var(--warn);background:#fffbeb}
    .sev{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;border-radius:4px;padding:1px 6px;margin-right:8px;color:#fff;background:var(--info)}
    .sev.error{background:var(--err)}.sev.warning{background:var(--warn)}
    .code{color:var(--muted);font-size:12px;margin-left:6px}
    ul.evidence{margin:6px 0 0;padding-left:18px;font-size:12px;color:var(--muted)}
    ul.evidence a{font-family:ui-monospace,Menlo,Consolas,monospace}
    .figure{border:1px solid var(--line);border-radius:8px;background:#fff;padding:8px;margin:8px 0}
    svg{display:block;width:100%;height:auto}
    .map-bg{fill:#f1f5f9}
    .map-empty{fill:var(--muted);font-size:16px}
    .trk{fill:none;stroke:#2563eb;stroke-width:2.2;stroke-linejoin:round;stroke-linecap:round}
    .trk-dot{fill:#2563eb}
    .gap{stroke:#64748b;stroke-width:1.6;stroke-dasharray:6 5;fill:none}
    .adj{fill:#a855f7;stroke:#fff;stroke-width:1}
    .adj-move{stroke:#a855f7;stroke-width:1;stroke-dasharray:2 2}
    .rej-accuracy{fill:#f59e0b;stroke:#92400e;stroke-width:.8}
    .rej-teleport{fill:#dc2626;stroke:#7f1d1d;stroke-width:.8}
    .rej-time{fill:#0d9488;stroke:#134e4a;stroke-width:.8}
    .rej-other{fill:#6b7280;stroke:#374151;stroke-width:.8}
    path.cross{fill:none;stroke-width:1.4}
    path.rej-accuracy.cross{stroke:#f59e0b}path.rej-teleport.cross{stroke:#dc2626}path.rej-time.cross{stroke:#0d9488}path.rej-other.cross{stroke:#6b7280}path.adj.cross{stroke:#a855f7}
    .start{fill:#16a34a;stroke:#fff;stroke-width:2}
    .end{fill:#0f172a;stroke:#fff;stroke-width:2}
    .geo{fill:#16a34a;stroke:#14532d;stroke-width:1}
    .geo-exit{fill:#86efac}
    .geo-label{font-size:11px;fill:#14532d;paint-order:stroke;stroke:#fff;stroke-width:3px}
    .head{fill:none;stroke:#db2777;stroke-width:3}
    .head-label{font-size:11px;font-weight:700;fill:#9d174d;paint-order:stroke;stroke:#fff;stroke-width:3px}
    .scale-bg{fill:#fff;opacity:.85}
    .scale-bar{fill:none;stroke:#0f172a;stroke-width:2}
    .scale-label{font-size:11px;fill:#0f172a}
    .north path{fill:#0f172a}.north text{font-size:12px;font-weight:700;fill:#0f172a}
    ul.legend{list-style:none;padding:0;margin:8px 0 0;display:flex;flex-wrap:wrap;gap:4px 18px;font-size:12px}
    ul.legend li{display:flex;align-items:center;gap:6px}
    ul.legend svg{width:22px;height:12px;display:inline-block}
    .sw-trk{stroke:#2563eb;stroke-width:3}.sw-gap{stroke:#64748b;stroke-width:2;stroke-dasharray:4 3}
    .plot-bg{fill:#fbfcfd;stroke:var(--line)}
    .grid{stroke:#e5e9ef;stroke-width:1}
    .tick{font-size:10px;fill:var(--muted)}
    .axis-label{font-size:11px;fill:var(--muted)}
    .ref{stroke:#dc2626;stroke-width:1;stroke-dasharray:4 3}
    .ref-label{font-size:10px;fill:#b91c1c}
    .gap-band{fill:#e2e8f0;opacity:.7}
    .series-speed{fill:none;stroke:#2563eb;stroke-width:1.3}
    .series-acc{fill:none;stroke:#d97706;stroke-width:1.3}
    .who{margin:.3em 0 0;font-size:13px}
    .series-depth{fill:none;stroke:#7c3aed;stroke-width:1.6}
    .att{stroke:#fff;stroke-width:.8}
    .r-delivered{fill:#16a34a}.r-refreshed{fill:#0ea5e9}.r-refreshFailed{fill:#dc2626}.r-unauthorized{fill:#be185d}.r-retried{fill:#f59e0b}.r-dropped{fill:#111827}.r-halved{fill:#a855f7}.r-counted{fill:#e11d48}.r-pending{fill:#94a3b8}
    .backoff{stroke:#f59e0b;stroke-width:1.5;stroke-dasharray:3 3;opacity:.8}
    .chart-note{color:var(--muted);font-size:12px;margin:2px 0 10px}
    .dt-controls{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:6px 0}
    .dt-controls input{padding:5px 8px;border:1px solid var(--line);border-radius:5px;min-width:260px;font:inherit}
    .dt-controls button,.dt-controls select{padding:4px 10px;border:1px solid var(--line);border-radius:5px;background:#fff;font:inherit;cursor:pointer}
    .dt-controls button:disabled{opacity:.4;cursor:default}
    .dt-status{color:var(--muted);font-size:12px}
    .dt-wrap{overflow:auto;border:1px solid var(--line);border-radius:6px;max-height:640px}
    table.dt{border-collapse:collapse;width:100%;font-size:12px}
    table.dt th{position:sticky;top:0;background:#eef2f6;text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);cursor:pointer;white-space:nowrap;user-select:none}
    table.dt th.asc::after{content:" \\25B2"}table.dt th.desc::after{content:" \\25BC"}
    table.dt td{padding:4px 8px;border-bottom:1px solid #eef1f4;vertical-align:top;max-width:420px;overflow-wrap:anywhere}
    table.dt td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
    table.dt td.id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;white-space:nowrap}
    table.dt tr.hit td{background:#fef9c3}
    table.dt tr:nth-child(even) td{background:#fafbfc}
    table.dt tr.hit:nth-child(even) td{background:#fef9c3}
    .note{color:var(--muted);font-size:12px}
    .noscript{color:var(--warn)}
    footer{color:var(--muted);font-size:12px;border-top:1px solid var(--line);margin-top:30px;padding-top:10px}
    @media print{
    nav.toc,.dt-controls{display:none}
    header.top{background:none;color:#000;border-bottom:2px solid #000}
    header.top h1{color:#000}header.top .sub{color:#333}
    body{font-size:11px}main{max-width:none;padding:0}
    .dt-wrap{max-height:none;overflow:visible;border:none}
    table.dt th{position:static}
    section{break-inside:auto}.figure,ol.findings>li{break-inside:avoid}
    pre{max-height:none}
    a{color:#000;text-decoration:none}
    }
    """

    /// The table engine: reads each embedded JSON block, renders a page of rows with textContent
    /// (never innerHTML, so no customer string is ever parsed as markup), and offers search,
    /// sorting and paging. Evidence links (#log-12) open the right page and highlight the row.
    static let script = """
    (function(){
    'use strict';
    var tables = [];
    function el(tag, cls, text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!==undefined)e.textContent=text;return e;}
    function cellText(v){if(v===null||v===undefined)return '';return typeof v==='string'?v:String(v);}
    function setup(box){
      var src=document.getElementById(box.getAttribute('data-table'));
      if(!src)return;
      var data;
      try{data=JSON.parse(src.textContent);}catch(e){box.appendChild(el('p','noscript','table data unreadable'));return;}
      var st={box:box,data:data,order:[],view:[],page:0,size:50,sort:-1,dir:1,q:''};
      for(var i=0;i<data.rows.length;i++){st.order.push(i);}
      var controls=el('div','dt-controls');
      var search=el('input');search.type='search';search.placeholder='Search '+data.rows.length+' rows…';
      search.setAttribute('aria-label','Search');
      var prev=el('button',null,'‹ Prev');var next=el('button',null,'Next ›');
      var size=el('select');[25,50,100,500].forEach(function(n){var o=el('option',null,String(n)+' / page');o.value=String(n);if(n===50)o.selected=true;size.appendChild(o);});
      var status=el('span','dt-status');
      controls.appendChild(search);controls.appendChild(prev);controls.appendChild(next);controls.appendChild(size);controls.appendChild(status);
      var wrap=el('div','dt-wrap');var table=el('table','dt');var thead=el('thead');var hr=el('tr');
      data.columns.forEach(function(c,ci){var th=el('th',null,c.label);th.addEventListener('click',function(){if(st.sort===ci){st.dir=-st.dir;}else{st.sort=ci;st.dir=1;}apply(st);});hr.appendChild(th);});
      thead.appendChild(hr);table.appendChild(thead);var tbody=el('tbody');table.appendChild(tbody);wrap.appendChild(table);
      box.appendChild(controls);box.appendChild(wrap);
      st.tbody=tbody;st.status=status;st.prev=prev;st.next=next;st.ths=hr.children;
      search.addEventListener('input',function(){st.q=search.value.toLowerCase();st.page=0;apply(st);});
      prev.addEventListener('click',function(){if(st.page>0){st.page--;render(st);}});
      next.addEventListener('click',function(){if((st.page+1)*st.size<st.view.length){st.page++;render(st);}});
      size.addEventListener('change',function(){st.size=parseInt(size.value,10)||50;st.page=0;render(st);});
      st.search=search;
      tables.push(st);apply(st);
    }
    function compare(a,b){
      if(a===b)return 0;if(a===null||a==='')return 1;if(b===null||b==='')return -1;
      if(typeof a==='number'&&typeof b==='number')return a<b?-1:1;
      a=String(a);b=String(b);return a<b?-1:(a>b?1:0);
    }
    function apply(st){
      var rows=st.data.rows,q=st.q,view=[];
      for(var i=0;i<rows.length;i++){
        if(q){var hay=rows[i].map(cellText).join('\\u0001').toLowerCase();if(hay.indexOf(q)<0)continue;}
        view.push(i);
      }
      if(st.sort>=0){var c=st.sort,d=st.dir;view.sort(function(x,y){var r=compare(rows[x][c],rows[y][c]);return r!==0?r*d:x-y;});}
      st.view=view;
      for(var k=0;k<st.ths.length;k++){st.ths[k].className=k===st.sort?(st.dir>0?'asc':'desc'):'';}
      render(st);
    }
    function render(st,hit){
      var rows=st.data.rows,cols=st.data.columns,start=st.page*st.size,end=Math.min(start+st.size,st.view.length);
      var frag=document.createDocumentFragment();
      for(var p=start;p<end;p++){
        var i=st.view[p],tr=el('tr');tr.id=st.data.anchors[i];tr.setAttribute('data-row','1');
        if(hit&&tr.id===hit)tr.className='hit';
        for(var c=0;c<cols.length;c++){
          var text=cellText(rows[i][c]),td=el('td',cols[c].num?'num':(cols[c].id?'id':null),text);
          // Whole on one line up to 60 characters (a uuid is 36); longer ones end in an ellipsis, whole on hover.
          if(cols[c].id){td.title=text;if(text.length>60)td.textContent=text.slice(0,59)+'\\u2026';}
          tr.appendChild(td);
        }
        frag.appendChild(tr);
      }
      st.tbody.textContent='';st.tbody.appendChild(frag);
      var total=st.data.total,shown=rows.length;
      st.status.textContent=(st.view.length?(start+1)+'–'+end:'0')+' of '+st.view.length+(st.q?' matching':'')+' · '+shown+' embedded'+(total>shown?' of '+total+' in the dump':'');
      st.prev.disabled=st.page===0;st.next.disabled=end>=st.view.length;
    }
    function goTo(id){
      for(var t=0;t<tables.length;t++){
        var st=tables[t],idx=st.data.anchors.indexOf(id);
        if(idx<0)continue;
        var pos=st.view.indexOf(idx);
        if(pos<0){st.q='';st.search.value='';apply(st);pos=st.view.indexOf(idx);}
        st.page=Math.floor(pos/st.size);render(st,id);
        var row=document.getElementById(id);if(row&&row.scrollIntoView)row.scrollIntoView({block:'center'});
        return true;
      }
      return false;
    }
    document.querySelectorAll('div.dt-box').forEach(setup);
    document.addEventListener('click',function(ev){
      var a=ev.target&&ev.target.closest?ev.target.closest('a[href^="#"]'):null;
      if(!a)return;var id=decodeURIComponent(a.getAttribute('href').slice(1));
      if(goTo(id)){ev.preventDefault();if(history.replaceState)history.replaceState(null,'','#'+id);}
    });
    window.addEventListener('hashchange',function(){goTo(decodeURIComponent(location.hash.slice(1)));});
    if(location.hash)goTo(decodeURIComponent(location.hash.slice(1)));
    var rendered=document.querySelectorAll('tr[data-row]').length;
    document.documentElement.setAttribute('data-tables-ready',String(rendered));
    })();
    """
}
